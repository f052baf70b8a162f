// The lean FlowBus clients of anchor.c over flowd's WebSocket endpoint (RFC 6455 by hand: a handshake, masked text
// frames out, frames in, pings answered), so that flowd over WebSocket is measured with clients as lean as its
// ZeroMQ ones: pre-encoded messages, no client library. Included by anchor.c.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

typedef struct {
    int fd;
    char *buffer;
    size_t used;
    size_t capacity;
} ws_t;

static void ws_fail(const char *what) {
    fprintf(stderr, "flowbench-anchor: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void ws_write_all(ws_t *ws, const void *data, size_t size) {
    const char *bytes = data;
    while (size > 0) {
        ssize_t written = write(ws->fd, bytes, size);
        if (written < 0) {
            if (errno == EINTR) continue;
            ws_fail("write");
        }
        bytes += written;
        size -= (size_t)written;
    }
}

/// Reads more into the buffer; 0 at the end of the connection.
static int ws_fill(ws_t *ws) {
    if (ws->capacity - ws->used < 65536) {
        ws->capacity = ws->capacity * 2 + 65536;
        ws->buffer = realloc(ws->buffer, ws->capacity);
    }
    for (;;) {
        ssize_t got = read(ws->fd, ws->buffer + ws->used, ws->capacity - ws->used);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) ws_fail("read");
        ws->used += (size_t)got;
        return got > 0;
    }
}

/// Connects to 127.0.0.1:port at `path` (with its query), asking for flowbus.v1.
static ws_t ws_connect_to(int port, const char *path) {
    ws_t ws = {socket(AF_INET, SOCK_STREAM, 0), malloc(65536), 0, 65536};
    if (ws.fd < 0) ws_fail("socket");
    int one = 1;
    setsockopt(ws.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(ws.fd, (struct sockaddr *)&address, sizeof address) != 0) ws_fail("connect");
    char request[512];
    int size = snprintf(request, sizeof request,
                        "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                        "Sec-WebSocket-Protocol: flowbus.v1\r\n\r\n",
                        path);
    ws_write_all(&ws, request, (size_t)size);
    for (;;) {
        char *end = memmem(ws.buffer, ws.used, "\r\n\r\n", 4);
        if (end) {
            if (ws.used < 12 || memcmp(ws.buffer + 9, "101", 3) != 0) {
                fprintf(stderr, "flowbench-anchor: the WebSocket handshake was refused: %.*s\n", (int)ws.used, ws.buffer);
                exit(1);
            }
            size_t head = (size_t)(end - ws.buffer) + 4;
            memmove(ws.buffer, ws.buffer + head, ws.used - head);
            ws.used -= head;
            return ws;
        }
        if (!ws_fill(&ws)) {
            fprintf(stderr, "flowbench-anchor: the connection ended during the handshake\n");
            exit(1);
        }
    }
}

/// Connects to flowd's endpoint at 127.0.0.1:port as peer `id` (URL-safe).
static ws_t ws_connect(int port, const char *id) {
    char path[256];
    snprintf(path, sizeof path, "/flowbus?id=%s", id);
    return ws_connect_to(port, path);
}

/// Sends one frame (masked with a zero key: a client's frames must be masked; the key is the client's choice).
static void ws_send_frame(ws_t *ws, int opcode, const char *data, size_t size) {
    unsigned char header[14];
    size_t length = 0;
    header[length++] = (unsigned char)(0x80 | opcode);
    if (size < 126) {
        header[length++] = (unsigned char)(0x80 | size);
    } else if (size < 65536) {
        header[length++] = 0x80 | 126;
        header[length++] = (unsigned char)(size >> 8);
        header[length++] = (unsigned char)size;
    } else {
        header[length++] = 0x80 | 127;
        for (int shift = 56; shift >= 0; shift -= 8) header[length++] = (unsigned char)(size >> shift);
    }
    memset(header + length, 0, 4);
    length += 4;
    struct iovec parts[2] = {{header, length}, {(void *)data, size}};
    size_t total = length + size;
    while (total > 0) {
        ssize_t written = writev(ws->fd, parts, 2);
        if (written < 0) {
            if (errno == EINTR) continue;
            ws_fail("writev");
        }
        total -= (size_t)written;
        if (total == 0) break;
        // A short write: the rest, plainly.
        size_t done = (size_t)written;
        if (done < length) {
            ws_write_all(ws, header + done, length - done);
            ws_write_all(ws, data, size);
        } else {
            ws_write_all(ws, data + (done - length), size - (done - length));
        }
        break;
    }
}

static void ws_send_text(ws_t *ws, const char *text, size_t size) {
    ws_send_frame(ws, 0x1, text, size);
}

/// The next text message (pings answered), into `*text` (pointing into the buffer, valid until the next call);
/// returns its size, or -1 at the end of the connection.
static long ws_next(ws_t *ws, const char **text, size_t *consumed) {
    if (*consumed > 0) {
        memmove(ws->buffer, ws->buffer + *consumed, ws->used - *consumed);
        ws->used -= *consumed;
        *consumed = 0;
    }
    for (;;) {
        if (ws->used >= 2) {
            unsigned char *bytes = (unsigned char *)ws->buffer;
            size_t length = bytes[1] & 0x7F;
            size_t offset = 2;
            if (length == 126 && ws->used >= 4) {
                length = ((size_t)bytes[2] << 8) | bytes[3];
                offset = 4;
            } else if (length == 127 && ws->used >= 10) {
                length = 0;
                for (int index = 2; index < 10; index++) length = (length << 8) | bytes[index];
                offset = 10;
            } else if (length >= 126) {
                length = SIZE_MAX;
            }
            if (length != SIZE_MAX && ws->used >= offset + length) {
                int opcode = bytes[0] & 0x0F;
                if (opcode == 0x9) {
                    ws_send_frame(ws, 0xA, ws->buffer + offset, length);
                } else if (opcode == 0x8) {
                    return -1;
                } else if (opcode == 0x1) {
                    *text = ws->buffer + offset;
                    *consumed = offset + length;
                    return (long)length;
                }
                memmove(ws->buffer, ws->buffer + offset + length, ws->used - offset - length);
                ws->used -= offset + length;
                continue;
            }
        }
        if (!ws_fill(ws)) return -1;
    }
}

static int ws_is(const char *text, long size, const char *type) {
    char wanted[64];
    int length = snprintf(wanted, sizeof wanted, "FLOWBUS/1\n%s\n", type);
    return size >= length && memcmp(text, wanted, (size_t)length) == 0;
}

static int ws_contains(const char *text, long size, const char *part) {
    return memmem(text, (size_t)size, part, strlen(part)) != NULL;
}

/// Says HELLO and waits for WELCOME.
static void ws_register(ws_t *ws, const char *role, const char *id, const char *name, const char *session) {
    char message[512];
    int size = snprintf(message, sizeof message,
                        "FLOWBUS/1\nHELLO\n{\"id\":0,\"sentAt\":0}\n{\"role\":\"%s\",\"id\":\"%s\",\"name\":\"%s\"%s%s%s,"
                        "\"protocolVersion\":1}",
                        role, id, name, session ? ",\"session\":\"" : "", session ? session : "", session ? "\"" : "");
    ws_send_text(ws, message, (size_t)size);
    const char *text;
    size_t consumed = 0;
    for (;;) {
        long got = ws_next(ws, &text, &consumed);
        if (got < 0 || ws_is(text, got, "ERROR")) {
            fprintf(stderr, "flowbench-anchor: no WELCOME for %s %s\n", role, id);
            exit(1);
        }
        if (ws_is(text, got, "WELCOME")) break;
    }
    memmove(ws->buffer, ws->buffer + consumed, ws->used - consumed);
    ws->used -= consumed;
}

static int ws_stepper(int port, const char *name, long steps, long window) {
    char id[128];
    snprintf(id, sizeof id, "bench%%2F%s", name);
    ws_t ws = ws_connect(port, id);
    char plain[128];
    snprintf(plain, sizeof plain, "bench/%s", name);
    ws_register(&ws, "stepper", plain, name, "bench");
    char message[512];
    const char *format = "FLOWBUS/1\nSTEP\n{\"id\":%ld,\"sentAt\":0,\"session\":\"bench\",\"sender\":\"%s\"}\n"
                         "{\"step\":{\"name\":\"tick\",\"parameters\":{\"n\":%ld,\"t\":%" PRId64 "}},\"sequence\":%ld}";
    say("ready");
    await_go();
    long sent = 0, answered = 0, accepted = 0;
    const char *text;
    size_t consumed = 0;
    while (answered < steps) {
        while (sent < steps && sent - answered < window) {
            sent++;
            int size = snprintf(message, sizeof message, format, sent, plain, sent, now_ns(), sent);
            ws_send_text(&ws, message, (size_t)size);
        }
        long got = ws_next(&ws, &text, &consumed);
        if (got < 0) {
            fprintf(stderr, "flowbench-anchor: flowd closed the WebSocket\n");
            return 1;
        }
        if (ws_is(text, got, "STEP_ACK") || ws_is(text, got, "ERROR")) {
            answered++;
            if (ws_contains(text, got, "\"accepted\":true")) accepted++;
        }
    }
    printf("done accepted=%ld refused=%ld\n", accepted, answered - accepted);
    fflush(stdout);
    close(ws.fd);
    return 0;
}

static int ws_presenter(int port, long steps) {
    ws_t ws = ws_connect(port, "bench%2Fmain");
    static const char subscribe[] = "SUBSCRIBE\ncmd/bench/main";
    ws_send_text(&ws, subscribe, sizeof subscribe - 1);
    const char *text;
    size_t consumed = 0;
    for (;;) {
        long got = ws_next(&ws, &text, &consumed);
        if (got < 0) {
            fprintf(stderr, "flowbench-anchor: the subscription was never confirmed\n");
            return 1;
        }
        if (got > 8 && memcmp(text, "PUBLISH\n", 8) == 0) break;
    }
    memmove(ws.buffer, ws.buffer + consumed, ws.used - consumed);
    ws.used -= consumed;
    consumed = 0;
    ws_register(&ws, "presenter", "bench/main", "main", "bench");
    say("ready");
    int64_t *latencies = malloc(sizeof(int64_t) * (size_t)(steps > 0 ? steps : 1));
    long received = 0;
    int64_t last_heartbeat = now_ns();
    static const char heartbeat[] = "FLOWBUS/1\nHEARTBEAT\n{\"id\":1,\"sentAt\":0,\"sender\":\"bench/main\"}\n{}";
    while (received < steps) {
        long got = ws_next(&ws, &text, &consumed);
        if (got < 0) break;
        int64_t now = now_ns();
        if (got > 8 && memcmp(text, "PUBLISH\n", 8) == 0 && ws_contains(text, got, "\nCOMMANDS\n")) {
            int64_t stamp = stamp_after(text, (size_t)got);
            if (stamp >= 0) latencies[received++] = now - stamp;
        }
        if (now - last_heartbeat > 1000000000) {
            ws_send_text(&ws, heartbeat, sizeof heartbeat - 1);
            last_heartbeat = now;
        }
    }
    qsort(latencies, (size_t)received, sizeof(int64_t), compare);
#define WS_AT(fraction) (received ? latencies[(long)((double)received * (fraction)) < received ? (long)((double)received * (fraction)) : received - 1] : 0)
    printf("done p50=%" PRId64 " p99=%" PRId64 " p999=%" PRId64 " n=%ld\n", WS_AT(0.5), WS_AT(0.99), WS_AT(0.999), received);
    fflush(stdout);
    return 0;
}

/// Reads the feed of `flowctl web` as its page does: looks at `session`, and reads every message (events, trees,
/// sessions) on a thread of its own until standard input ends.
static void *ws_feed_reader(void *argument) {
    ws_t *ws = argument;
    const char *text;
    size_t consumed = 0;
    while (ws_next(ws, &text, &consumed) >= 0) {
    }
    return NULL;
}

static int ws_feed(int port, const char *session) {
    static ws_t ws;
    ws = ws_connect_to(port, "/feed");
    char select[256];
    int size = snprintf(select, sizeof select, "{\"type\":\"select\",\"session\":\"%s\"}", session);
    ws_send_text(&ws, select, (size_t)size);
    pthread_t reader;
    if (pthread_create(&reader, NULL, ws_feed_reader, &ws) != 0) ws_fail("pthread_create");
    say("ready");
    char line[64];
    while (fgets(line, sizeof line, stdin)) {
    }
    return 0;
}

static int ws_idle(int port, long count) {
    ws_t *peers = calloc((size_t)count, sizeof(ws_t));
    for (long index = 0; index < count; index++) {
        char id[64];
        snprintf(id, sizeof id, "idle-%ld", index);
        peers[index] = ws_connect(port, id);
        ws_register(&peers[index], "inspector", id, id, NULL);
    }
    say("ready");
    // Idle: the connections stay open (flowd's pings are answered by nobody, so keep this shorter than its
    // heartbeat timeout) until standard input ends.
    char line[64];
    while (fgets(line, sizeof line, stdin)) {
    }
    return 0;
}
