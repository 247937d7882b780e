{
  "targets": [
    {
      "target_name": "malloc_trim",
      "sources": ["native/malloc_trim.c"],
      "conditions": [["OS!='linux'", {"type": "none"}]]
    }
  ]
}
