/*
 * Open-loop HTTP/1.1 load generator: requests are scheduled at a fixed rate, whatever the server
 * does, and each one's latency is measured from its INTENDED send time, so a server that stalls
 * is charged for every request that should have been sent meanwhile (coordinated omission
 * corrected). N kept-alive connections, one request in flight each; a request due while every
 * connection is busy waits for the first free one (counted as late). One thread, epoll, a timerfd
 * for the schedule. Prints one JSON object. Why C, why not httperf or wrk:
 * docs/decisions/open-loop-load.md. Built and run by shared/bench/src/open-loop.ts.
 *
 *   open-loop --host 127.0.0.1 --port 8080 --rate 500 --duration 10 --connections 16
 *     [--method POST] [--header 'Name: value']... [--body TEXT] [--path /x | --paths-file F]
 *     [--drain 10] [--late-ms 1]
 * The text "{{seq}}" in a path, header or body becomes the request's sequence number.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define MAX_HEAD 65536
#define READ_BUF 65536
#define SEQ_TOKEN "{{seq}}"

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

static const char *host = "127.0.0.1", *method = "GET", *body = NULL;
static int port = 80, nconns = 16;
static double rate = 100, duration = 5, drain_s = 10, late_ms = 1;
static char *headers = NULL; /* "Name: value\r\n"... */
static size_t headers_len = 0;
static char **paths = NULL;
static int npaths = 0;
static struct sockaddr_storage addr;
static socklen_t addr_len;

static double *lat = NULL, *svc = NULL; /* corrected and uncorrected latencies, ms */
static long nlat = 0;
static long statuses[600];
static long errors = 0, late = 0, sent_count = 0, finished = 0;
static double max_lag_ms = 0, last_done = 0;

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void die(const char *msg) {
  fprintf(stderr, "open-loop: %s\n", msg);
  exit(2);
}

static void *xmalloc(size_t n) {
  void *p = malloc(n);
  if (!p) die("out of memory");
  return p;
}

/* Appends src to a growing buffer, replacing SEQ_TOKEN by seq. */
static void append_subst(char **buf, size_t *len, size_t *cap, const char *src, long seq) {
  char num[32];
  int numlen = snprintf(num, sizeof num, "%ld", seq);
  size_t toklen = strlen(SEQ_TOKEN);
  while (*src) {
    const char *hit = strstr(src, SEQ_TOKEN);
    size_t chunk = hit ? (size_t)(hit - src) : strlen(src);
    size_t need = *len + chunk + (size_t)numlen + 1;
    if (need > *cap) {
      *cap = need * 2;
      *buf = realloc(*buf, *cap);
      if (!*buf) die("out of memory");
    }
    memcpy(*buf + *len, src, chunk);
    *len += chunk;
    if (!hit) break;
    memcpy(*buf + *len, num, (size_t)numlen);
    *len += (size_t)numlen;
    src = hit + toklen;
  }
  (*buf)[*len] = 0;
}

/* The bytes of request number seq. */
static void build_request(conn_t *c, long seq) {
  size_t len = 0, cap = 512;
  char *buf = xmalloc(cap);
  buf[0] = 0;
  char *b = NULL;
  size_t blen = 0, bcap = 0;
  if (body) {
    bcap = strlen(body) + 32;
    b = xmalloc(bcap);
    b[0] = 0;
    append_subst(&b, &blen, &bcap, body, seq);
  }
  append_subst(&buf, &len, &cap, method, seq);
  append_subst(&buf, &len, &cap, " ", seq);
  append_subst(&buf, &len, &cap, paths[seq % npaths], seq);
  char line[300];
  snprintf(line, sizeof line, " HTTP/1.1\r\nHost: %s:%d\r\n", host, port);
  append_subst(&buf, &len, &cap, line, seq);
  if (headers) append_subst(&buf, &len, &cap, headers, seq);
  if (b) {
    snprintf(line, sizeof line, "Content-Length: %zu\r\n", blen);
    append_subst(&buf, &len, &cap, line, seq);
  }
  append_subst(&buf, &len, &cap, "\r\n", seq);
  if (b) {
    if (len + blen + 1 > cap) {
      cap = len + blen + 1;
      buf = realloc(buf, cap);
      if (!buf) die("out of memory");
    }
    memcpy(buf + len, b, blen);
    len += blen;
    free(b);
  }
  free(c->out);
  c->out = buf;
  c->out_len = len;
  c->out_off = 0;
}

static int epfd;

static int open_conn(conn_t *c) {
  int fd = socket(addr.ss_family, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  if (connect(fd, (struct sockaddr *)&addr, addr_len) < 0) {
    close(fd);
    return -1;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0) {
    close(fd);
    return -1;
  }
  struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP, .data.ptr = c};
  if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
    close(fd);
    return -1;
  }
  c->fd = fd;
  return 0;
}

static conn_t *conns;
static int *idle_stack;
static int nidle = 0;

static void push_idle(conn_t *c) {
  c->state = ST_IDLE;
  idle_stack[nidle++] = (int)(c - conns);
}

static void close_conn(conn_t *c) {
  if (c->fd >= 0) {
    epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
  }
  c->fd = -1;
}

static void record(conn_t *c, double t) {
  lat[nlat] = (t - c->intended) / 1e6;
  svc[nlat] = (t - c->sent) / 1e6;
  nlat++;
  if (c->status >= 100 && c->status < 600) statuses[c->status]++;
  finished++;
  last_done = t;
}

/* The request in flight on c failed: counted as an error, the connection is reopened on use. */
static void fail(conn_t *c) {
  close_conn(c);
  if (c->state == ST_IDLE) return; /* no request in flight: already on the idle stack */
  errors++;
  finished++;
  last_done = now_ns();
  push_idle(c);
}

static void complete(conn_t *c) {
  record(c, now_ns());
  if (c->close_after) close_conn(c);
  push_idle(c);
}

static int flush_out(conn_t *c) {
  while (c->out_off < c->out_len) {
    ssize_t n = write(c->fd, c->out + c->out_off, c->out_len - c->out_off);
    if (n < 0) {
      if (errno == EAGAIN) {
        struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP, .data.ptr = c};
        epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &ev);
        return 0;
      }
      return -1;
    }
    c->out_off += (size_t)n;
  }
  struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP, .data.ptr = c};
  epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &ev);
  return 0;
}

static void send_request(conn_t *c, long seq, double intended) {
  double t = now_ns();
  double lag = (t - intended) / 1e6;
  if (lag > late_ms) late++;
  if (lag > max_lag_ms) max_lag_ms = lag;
  sent_count++;
  c->intended = intended;
  c->sent = t;
  c->head_len = 0;
  c->state = ST_HEAD;
  if (c->fd < 0 && open_conn(c) < 0) {
    fail(c);
    return;
  }
  build_request(c, seq);
  if (flush_out(c) < 0) fail(c);
}

/* Status, framing and connection handling of a complete head; -1 if it cannot be framed. */
static int parse_head(conn_t *c) {
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
  if (strcmp(method, "HEAD") == 0 || c->status == 204 || c->status == 304 ||
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
static int feed(conn_t *c, const char *p, size_t n) {
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
        if (parse_head(c) < 0) return -1;
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

static void on_readable(conn_t *c) {
  static char buf[READ_BUF];
  for (;;) {
    ssize_t n = read(c->fd, buf, sizeof buf);
    if (n > 0) {
      int r = feed(c, buf, (size_t)n);
      if (r < 0) {
        fail(c);
        return;
      }
      if (r == 1) {
        complete(c);
        return;
      }
      continue;
    }
    if (n < 0 && errno == EAGAIN) return;
    if (n < 0 && errno == EINTR) continue;
    /* closed (or reset) by the server */
    if (c->state == ST_UNTIL_CLOSE) {
      c->close_after = 1;
      complete(c);
    } else if (c->state == ST_IDLE) {
      close_conn(c);
      /* already on the idle stack: reopened when next used */
    } else
      fail(c);
    return;
  }
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of a sorted array. */
static double pct(const double *v, long n, double q) {
  if (n == 0) return -1;
  long rank = (long)(q * (double)n + 0.999999999);
  if (rank < 1) rank = 1;
  if (rank > n) rank = n;
  return v[rank - 1];
}

static void add_header(const char *h) {
  size_t n = strlen(h);
  headers = realloc(headers, headers_len + n + 3);
  if (!headers) die("out of memory");
  memcpy(headers + headers_len, h, n);
  memcpy(headers + headers_len + n, "\r\n", 3);
  headers_len += n + 2;
}

static void read_paths(const char *file) {
  FILE *f = fopen(file, "r");
  if (!f) die("cannot read the paths file");
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  while ((n = getline(&line, &cap, f)) > 0) {
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = 0;
    if (n == 0) continue;
    paths = realloc(paths, sizeof(char *) * (size_t)(npaths + 1));
    if (!paths) die("out of memory");
    paths[npaths++] = strdup(line);
  }
  free(line);
  fclose(f);
}

static void resolve(void) {
  struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res;
  char service[16];
  snprintf(service, sizeof service, "%d", port);
  if (getaddrinfo(host, service, &hints, &res) != 0 || !res) die("cannot resolve the host");
  memcpy(&addr, res->ai_addr, res->ai_addrlen);
  addr_len = res->ai_addrlen;
  freeaddrinfo(res);
}

static void arm(int tfd, double at_ns) {
  struct itimerspec its = {0};
  if (at_ns > 0) {
    its.it_value.tv_sec = (time_t)(at_ns / 1e9);
    its.it_value.tv_nsec = (long)(at_ns - (double)its.it_value.tv_sec * 1e9);
    if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0) its.it_value.tv_nsec = 1;
  }
  timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v) die("every option takes a value");
    i++;
    if (!strcmp(a, "--host")) host = v;
    else if (!strcmp(a, "--port")) port = atoi(v);
    else if (!strcmp(a, "--rate")) rate = atof(v);
    else if (!strcmp(a, "--duration")) duration = atof(v);
    else if (!strcmp(a, "--connections")) nconns = atoi(v);
    else if (!strcmp(a, "--method")) method = v;
    else if (!strcmp(a, "--header")) add_header(v);
    else if (!strcmp(a, "--body")) body = v;
    else if (!strcmp(a, "--path")) {
      paths = realloc(paths, sizeof(char *) * (size_t)(npaths + 1));
      paths[npaths++] = strdup(v);
    } else if (!strcmp(a, "--paths-file")) read_paths(v);
    else if (!strcmp(a, "--drain")) drain_s = atof(v);
    else if (!strcmp(a, "--late-ms")) late_ms = atof(v);
    else die("unknown option");
  }
  if (rate <= 0 || duration <= 0 || nconns <= 0 || port <= 0) die("bad rate, duration, connections or port");
  if (npaths == 0) {
    paths = xmalloc(sizeof(char *));
    paths[npaths++] = "/";
  }
  resolve();
  long total = (long)(rate * duration + 0.5);
  lat = xmalloc(sizeof(double) * (size_t)(total + 1));
  svc = xmalloc(sizeof(double) * (size_t)(total + 1));
  conns = calloc((size_t)nconns, sizeof(conn_t));
  idle_stack = xmalloc(sizeof(int) * (size_t)nconns);
  if (!conns) die("out of memory");
  epfd = epoll_create1(0);
  int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
  struct epoll_event tev = {.events = EPOLLIN, .data.ptr = NULL};
  epoll_ctl(epfd, EPOLL_CTL_ADD, tfd, &tev);
  for (int i = nconns - 1; i >= 0; i--) {
    conns[i].fd = -1;
    if (open_conn(&conns[i]) < 0) die("cannot connect");
    push_idle(&conns[i]);
  }
  double interval = 1e9 / rate;
  double start = now_ns() + 1e6;
  double deadline = start + (duration + drain_s) * 1e9;
  long next = 0;
  struct epoll_event events[256];
  for (;;) {
    double t = now_ns();
    while (next < total && nidle > 0 && start + (double)next * interval <= t) {
      conn_t *c = &conns[idle_stack[--nidle]];
      send_request(c, next, start + (double)next * interval);
      next++;
    }
    if (finished >= total || t >= deadline) break;
    arm(tfd, next < total && nidle > 0 ? start + (double)next * interval : 0);
    int wait_ms = (int)((deadline - t) / 1e6) + 1;
    int n = epoll_wait(epfd, events, 256, wait_ms);
    if (n < 0 && errno != EINTR) die("epoll_wait failed");
    for (int i = 0; i < n; i++) {
      conn_t *c = events[i].data.ptr;
      if (!c) {
        uint64_t expirations;
        (void)!read(tfd, &expirations, sizeof expirations);
        continue;
      }
      if (c->fd < 0) continue;
      if (events[i].events & EPOLLOUT && c->state == ST_HEAD && c->out_off < c->out_len) {
        if (flush_out(c) < 0) {
          fail(c);
          continue;
        }
      }
      if (events[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) on_readable(c);
    }
  }
  double end = last_done > start ? last_done : now_ns();
  double elapsed = (end - start) / 1e9;
  if (elapsed < duration) elapsed = duration;
  long unfinished = total - finished;
  qsort(lat, (size_t)nlat, sizeof(double), cmp_double);
  qsort(svc, (size_t)nlat, sizeof(double), cmp_double);
  printf("{\"intended\":%ld,\"sent\":%ld,\"completed\":%ld,\"errors\":%ld,\"unfinished\":%ld,"
         "\"late\":%ld,\"maxSendLagMs\":%.3f,\"durationS\":%.3f,\"elapsedS\":%.3f,"
         "\"askedRate\":%.3f,\"achievedRate\":%.3f,",
         total, sent_count, nlat, errors, unfinished, late, max_lag_ms, duration, elapsed, rate,
         (double)nlat / elapsed);
  printf("\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f,\"p999\":%.3f,\"max\":%.3f,", pct(lat, nlat, 0.5),
         pct(lat, nlat, 0.9), pct(lat, nlat, 0.99), pct(lat, nlat, 0.999), pct(lat, nlat, 1));
  printf("\"uncorrected\":{\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f,\"p999\":%.3f,\"max\":%.3f},",
         pct(svc, nlat, 0.5), pct(svc, nlat, 0.9), pct(svc, nlat, 0.99), pct(svc, nlat, 0.999),
         pct(svc, nlat, 1));
  printf("\"statuses\":{");
  int first = 1;
  for (int s = 0; s < 600; s++)
    if (statuses[s]) {
      printf("%s\"%d\":%ld", first ? "" : ",", s, statuses[s]);
      first = 0;
    }
  printf("}}\n");
  return 0;
}
