/*
 * HTTP/1.1 response framing for open-loop.c: one connection's state, and a parser fed the bytes as
 * they arrive that finds where each response ends (Content-Length, chunked, or the connection's
 * close) without keeping the body. Included by open-loop.c only.
 */
#ifndef OPEN_LOOP_HTTP_H
#define OPEN_LOOP_HTTP_H
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>

#define MAX_HEAD 65536

enum { ST_IDLE, ST_HEAD, ST_LENGTH, ST_CHUNK_SIZE, ST_CHUNK_DATA, ST_CHUNK_CRLF, ST_TRAILER,
       ST_UNTIL_CLOSE };

typedef struct {
  int fd;
  int state;
  char *out;
  size_t out_len, out_off;
  double intended, sent; /* ns, CLOCK_MONOTONIC */
  char head[MAX_HEAD];
  size_t head_len;
  long long left;
  char line[1024];
  size_t line_len;
  int status, close_after;
} conn_t;

/* Status, framing and connection handling of a complete head; -1 if it cannot be framed. */
static int parse_head(conn_t *c, int head_request) {
  char *h = c->head;
  h[c->head_len] = 0;
  if (strncmp(h, "HTTP/1.", 7) != 0 || strlen(h) < 12) return -1;
  c->status = atoi(h + 9);
  c->close_after = h[7] == '0';
  long long length = -1;
  int chunked = 0;
  for (char *line = strstr(h, "\r\n"); line && line[2]; line = strstr(line + 2, "\r\n")) {
    char *name = line + 2, *colon = strchr(name, ':');
    char *end = strstr(name, "\r\n");
    if (!colon || (end && colon > end)) continue;
    char *value = colon + 1;
    while (*value == ' ' || *value == '\t') value++;
    size_t nlen = (size_t)(colon - name);
    if (nlen == 14 && strncasecmp(name, "content-length", 14) == 0)
      length = strtoll(value, NULL, 10);
    else if (nlen == 17 && strncasecmp(name, "transfer-encoding", 17) == 0)
      chunked = strncasecmp(value, "chunked", 7) == 0;
    else if (nlen == 10 && strncasecmp(name, "connection", 10) == 0)
      c->close_after = strncasecmp(value, "close", 5) == 0;
  }
  if (head_request || c->status == 204 || c->status == 304 ||
      (c->status >= 100 && c->status < 200)) {
    c->state = ST_LENGTH;
    c->left = 0;
  } else if (chunked) {
    c->state = ST_CHUNK_SIZE;
    c->line_len = 0;
  } else if (length >= 0) {
    c->state = ST_LENGTH;
    c->left = length;
  } else if (c->close_after) {
    c->state = ST_UNTIL_CLOSE;
  } else
    return -1;
  return 0;
}

/* Takes one line of a chunked body into c->line; 1 when complete, 0 when more bytes are needed. */
static int take_line(conn_t *c, const char **p, const char *end) {
  while (*p < end) {
    char ch = *(*p)++;
    if (ch == '\n') {
      if (c->line_len && c->line[c->line_len - 1] == '\r') c->line_len--;
      c->line[c->line_len] = 0;
      return 1;
    }
    if (c->line_len + 1 >= sizeof c->line) return -1;
    c->line[c->line_len++] = ch;
  }
  return 0;
}

/* Feeds received bytes; 1 when the response ended, -1 on bytes that cannot be framed. */
static int feed(conn_t *c, const char *p, size_t n, int head_request) {
  const char *end = p + n;
  while (p < end || (c->state == ST_LENGTH && c->left == 0)) {
    switch (c->state) {
      case ST_HEAD: {
        size_t prev = c->head_len, room = MAX_HEAD - 1 - prev;
        size_t take = (size_t)(end - p) < room ? (size_t)(end - p) : room;
        memcpy(c->head + prev, p, take);
        c->head_len += take;
        c->head[c->head_len] = 0;
        size_t from = prev >= 3 ? prev - 3 : 0;
        char *term = memmem(c->head + from, c->head_len - from, "\r\n\r\n", 4);
        if (!term) {
          if (c->head_len >= MAX_HEAD - 1) return -1;
          return 0;
        }
        size_t head_end = (size_t)(term - c->head) + 4;
        p += head_end - prev;
        c->head_len = head_end - 2; /* keep the last header line's CRLF */
        if (parse_head(c, head_request) < 0) return -1;
        break;
      }
      case ST_LENGTH: {
        long long avail = end - p;
        long long take = avail < c->left ? avail : c->left;
        p += take;
        c->left -= take;
        if (c->left == 0) return p == end ? 1 : -1;
        break;
      }
      case ST_UNTIL_CLOSE:
        return 0;
      case ST_CHUNK_SIZE: {
        int r = take_line(c, &p, end);
        if (r <= 0) return r;
        char *stop;
        c->left = strtoll(c->line, &stop, 16);
        if (stop == c->line || c->left < 0) return -1;
        c->line_len = 0;
        c->state = c->left == 0 ? ST_TRAILER : ST_CHUNK_DATA;
        break;
      }
      case ST_CHUNK_DATA: {
        long long avail = end - p;
        long long take = avail < c->left ? avail : c->left;
        p += take;
        c->left -= take;
        if (c->left == 0) c->state = ST_CHUNK_CRLF;
        break;
      }
      case ST_CHUNK_CRLF: {
        int r = take_line(c, &p, end);
        if (r <= 0) return r;
        if (c->line_len != 0) return -1;
        c->state = ST_CHUNK_SIZE;
        break;
      }
      case ST_TRAILER: {
        int r = take_line(c, &p, end);
        if (r <= 0) return r;
        if (c->line_len == 0) return p == end ? 1 : -1;
        c->line_len = 0;
        break;
      }
      default:
        return -1; /* bytes while no request is in flight */
    }
  }
  return 0;
}

#endif
