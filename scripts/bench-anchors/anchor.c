// flowbench-anchor: the anchors of FlowBus's benchmarks, written against libzmq alone so that they measure the
// transport and not FlowBus. scripts/bench compiles it with the system's C compiler; flowbench starts it in the
// roles below, each a process speaking flowbench's line protocol (`ready`, then `go` on standard input, then
// `done ...`).
//
//   relay CONTROL EVENTS raw|ack     a ROUTER in, an XPUB out: forwards each message as is on cmd/bench/main
//                                    (raw), and also answers each with a pre-encoded STEP_ACK (ack). Confirms each
//                                    subscription with a message on its topic, as flowd does.
//   stepper CONTROL NAME STEPS WINDOW [hello]
//                                    a lean FlowBus stepper: with `hello`, registers in session `bench` first; then
//                                    sends STEPS STEP messages (their constant frames encoded once), WINDOW of them
//                                    in flight (0: no acknowledgement expected, as fast as the socket takes them).
//                                    Prints `done accepted=N refused=M`.
//   presenter EVENTS STEPS [CONTROL] a lean FlowBus presenter: subscribes to cmd/bench/main (and with CONTROL says
//                                    HELLO as presenter `main` of session `bench`), waits for the subscription's
//                                    confirmation, then receives STEPS messages and prints latency percentiles
//                                    (ns) from the stamp `"t":` each one carries.
//   wsstepper PORT NAME STEPS WINDOW the lean stepper over flowd's WebSocket endpoint on 127.0.0.1:PORT (websocket.c).
//   wspresenter PORT STEPS           the lean presenter over WebSocket.
//   wsidle PORT COUNT                COUNT idle WebSocket peers (inspectors), registered, until standard input ends.
//   wsfeed PORT SESSION              a page of flowctl web: reads its feed at /feed, looking at SESSION, until
//                                    standard input ends.

#define _GNU_SOURCE  // memmem, for the WebSocket roles
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zmq.h>

static int64_t now_ns(void);
static void say(const char *line);
static void await_go(void);
static int compare(const void *left, const void *right);
static int64_t stamp_after(const char *text, size_t size);
#include "websocket.c"

static const char protocol[] = "FLOWBUS/1";
static const char topic[] = "cmd/bench/main";

static void fail(const char *what) {
    fprintf(stderr, "flowbench-anchor: %s: %s\n", what, zmq_strerror(zmq_errno()));
    exit(1);
}

static int64_t now_ns(void) {
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return (int64_t)time.tv_sec * 1000000000 + time.tv_nsec;
}

static void say(const char *line) {
    printf("%s\n", line);
    fflush(stdout);
}

static void await_go(void) {
    char line[64];
    while (fgets(line, sizeof line, stdin)) {
        if (strncmp(line, "go", 2) == 0) return;
    }
    exit(0);
}

static void send_frame(void *socket, const void *data, size_t size, int more) {
    while (zmq_send(socket, data, size, more ? ZMQ_SNDMORE : 0) < 0) {
        if (zmq_errno() != EINTR) fail("send");
    }
}

/// Sends the four frames of a FlowBus message (after `prefix`, a routing id or a topic, when given).
static void send_message(void *socket, const char *prefix, size_t prefix_size, const char *type, const char *header,
                         size_t header_size, const char *body, size_t body_size) {
    if (prefix) send_frame(socket, prefix, prefix_size, 1);
    send_frame(socket, protocol, sizeof protocol - 1, 1);
    send_frame(socket, type, strlen(type), 1);
    send_frame(socket, header, header_size, 1);
    send_frame(socket, body, body_size, 0);
}

/// Receives one multipart message into `parts` (at most `capacity`, the rest dropped); returns the number of parts.
static int receive_message(void *socket, zmq_msg_t *parts, int capacity, int flags) {
    int count = 0;
    int more = 1;
    while (more) {
        zmq_msg_t scratch;
        zmq_msg_t *part = count < capacity ? &parts[count] : &scratch;
        zmq_msg_init(part);
        if (zmq_msg_recv(part, socket, count == 0 ? flags : 0) < 0) {
            zmq_msg_close(part);
            if (zmq_errno() == EAGAIN || zmq_errno() == EINTR) return count;
            fail("receive");
        }
        more = zmq_msg_more(part);
        if (count >= capacity) zmq_msg_close(part);
        count++;
    }
    return count < capacity ? count : capacity;
}

static void close_parts(zmq_msg_t *parts, int count) {
    for (int index = 0; index < count; index++) zmq_msg_close(&parts[index]);
}

static int part_is(zmq_msg_t *part, const char *text) {
    size_t size = strlen(text);
    return zmq_msg_size(part) == size && memcmp(zmq_msg_data(part), text, size) == 0;
}

/// Whether `text` occurs in the part.
static int part_contains(zmq_msg_t *part, const char *text) {
    size_t size = strlen(text);
    const char *data = zmq_msg_data(part);
    size_t length = zmq_msg_size(part);
    for (size_t index = 0; index + size <= length; index++) {
        if (memcmp(data + index, text, size) == 0) return 1;
    }
    return 0;
}

/// The integer after the first `"t":` in the part, or -1.
static int64_t stamp_in(zmq_msg_t *part) {
    return stamp_after(zmq_msg_data(part), zmq_msg_size(part));
}

/// The integer after the first `"t":` in `data`, or -1.
static int64_t stamp_after(const char *data, size_t length) {
    for (size_t index = 0; index + 4 < length; index++) {
        if (memcmp(data + index, "\"t\":", 4) == 0) {
            int64_t value = 0;
            size_t start = index + 4;
            while (start < length && data[start] == ' ') start++;
            for (size_t digit = start; digit < length && data[digit] >= '0' && data[digit] <= '9'; digit++) {
                value = value * 10 + (data[digit] - '0');
            }
            return value;
        }
    }
    return -1;
}

static void *bound(void *context, int type, const char *endpoint) {
    void *socket = zmq_socket(context, type);
    if (!socket) fail("socket");
    int unlimited = 0;
    zmq_setsockopt(socket, ZMQ_SNDHWM, &unlimited, sizeof unlimited);
    zmq_setsockopt(socket, ZMQ_RCVHWM, &unlimited, sizeof unlimited);
    if (zmq_bind(socket, endpoint) != 0) fail(endpoint);
    return socket;
}

static int relay(const char *control, const char *events, int acknowledge) {
    void *context = zmq_ctx_new();
    void *router = bound(context, ZMQ_ROUTER, control);
    void *publisher = bound(context, ZMQ_XPUB, events);
    static const char ack_header[] = "{\"id\":1,\"sentAt\":0,\"session\":\"bench\"}";
    static const char ack_body[] = "{\"sequence\":1,\"fate\":{\"accepted\":true,\"flows\":[1]}}";
    say("ready");
    zmq_pollitem_t items[] = {{router, 0, ZMQ_POLLIN, 0}, {publisher, 0, ZMQ_POLLIN, 0}};
    zmq_msg_t parts[8];
    for (;;) {
        if (zmq_poll(items, 2, -1) < 0) {
            if (zmq_errno() == EINTR) continue;
            fail("poll");
        }
        if (items[1].revents & ZMQ_POLLIN) {
            int count;
            while ((count = receive_message(publisher, parts, 8, ZMQ_DONTWAIT)) > 0) {
                const char *data = zmq_msg_data(&parts[0]);
                if (zmq_msg_size(&parts[0]) > 0 && data[0] == 1) {
                    send_frame(publisher, data + 1, zmq_msg_size(&parts[0]) - 1, 1);
                    send_frame(publisher, "subscribed", 10, 0);
                }
                close_parts(parts, count);
            }
        }
        if (items[0].revents & ZMQ_POLLIN) {
            int count;
            while ((count = receive_message(router, parts, 8, ZMQ_DONTWAIT)) > 0) {
                send_frame(publisher, topic, sizeof topic - 1, 1);
                for (int index = 1; index < count; index++) {
                    zmq_msg_send(&parts[index], publisher, index + 1 < count ? ZMQ_SNDMORE : 0);
                }
                if (acknowledge) {
                    send_message(router, zmq_msg_data(&parts[0]), zmq_msg_size(&parts[0]), "STEP_ACK", ack_header,
                                 sizeof ack_header - 1, ack_body, sizeof ack_body - 1);
                }
                close_parts(parts, count);
            }
        }
    }
    return 0;
}

static void *dealer(void *context, const char *endpoint, const char *identity) {
    void *socket = zmq_socket(context, ZMQ_DEALER);
    if (!socket) fail("socket");
    int unlimited = 0;
    zmq_setsockopt(socket, ZMQ_SNDHWM, &unlimited, sizeof unlimited);
    zmq_setsockopt(socket, ZMQ_RCVHWM, &unlimited, sizeof unlimited);
    zmq_setsockopt(socket, ZMQ_ROUTING_ID, identity, strlen(identity));
    if (zmq_connect(socket, endpoint) != 0) fail(endpoint);
    return socket;
}

/// Says HELLO and waits for WELCOME (an ERROR, or nothing within 10 s, ends the process).
static void register_peer(void *socket, const char *role, const char *identity, const char *name) {
    char header[256];
    char body[512];
    int header_size = snprintf(header, sizeof header, "{\"id\":0,\"sentAt\":0,\"sender\":\"%s\"}", identity);
    int body_size = snprintf(body, sizeof body,
                             "{\"role\":\"%s\",\"id\":\"%s\",\"name\":\"%s\",\"session\":\"bench\","
                             "\"capabilities\":[],\"protocolVersion\":1}",
                             role, identity, name);
    send_message(socket, NULL, 0, "HELLO", header, header_size, body, body_size);
    int timeout = 10000;
    zmq_setsockopt(socket, ZMQ_RCVTIMEO, &timeout, sizeof timeout);
    zmq_msg_t parts[4];
    int count = receive_message(socket, parts, 4, 0);
    if (count != 4 || !part_is(&parts[1], "WELCOME")) {
        fprintf(stderr, "flowbench-anchor: no WELCOME for %s %s\n", role, identity);
        exit(1);
    }
    close_parts(parts, count);
    timeout = -1;
    zmq_setsockopt(socket, ZMQ_RCVTIMEO, &timeout, sizeof timeout);
}

static int stepper(const char *control, const char *name, long steps, long window, int hello) {
    void *context = zmq_ctx_new();
    void *socket = dealer(context, control, name);
    if (hello) register_peer(socket, "stepper", name, name);
    // The constant frames are encoded once; the header and body differ only in their numbers.
    char header[128];
    char body[256];
    const char *header_format = "{\"id\":%ld,\"sentAt\":0,\"session\":\"bench\",\"sender\":\"%s\"}";
    const char *body_format = "{\"step\":{\"name\":\"tick\",\"parameters\":{\"n\":%ld,\"t\":%" PRId64 "}},\"sequence\":%ld}";
    say("ready");
    await_go();
    long sent = 0;
    long answered = 0;
    long accepted = 0;
    zmq_msg_t parts[4];
    while (window == 0 ? sent < steps : answered < steps) {
        while (sent < steps && (window == 0 || sent - answered < window)) {
            sent++;
            int header_size = snprintf(header, sizeof header, header_format, sent, name);
            int body_size = snprintf(body, sizeof body, body_format, sent, now_ns(), sent);
            send_message(socket, NULL, 0, "STEP", header, header_size, body, body_size);
        }
        if (window == 0) break;
        int count = receive_message(socket, parts, 4, 0);
        if (count == 4 && (part_is(&parts[1], "STEP_ACK") || part_is(&parts[1], "ERROR"))) {
            answered++;
            if (part_contains(&parts[3], "\"accepted\":true") || part_contains(&parts[3], "\"accepted\": true")) {
                accepted++;
            }
        }
        close_parts(parts, count);
    }
    // Whatever is still queued goes out before `done` (raw: the relay takes all of it), as the harness may end the
    // process once it said so.
    int linger = 10000;
    zmq_setsockopt(socket, ZMQ_LINGER, &linger, sizeof linger);
    zmq_close(socket);
    zmq_ctx_term(context);
    printf("done accepted=%ld refused=%ld\n", accepted, answered - accepted);
    fflush(stdout);
    return 0;
}

static int compare(const void *left, const void *right) {
    int64_t a = *(const int64_t *)left, b = *(const int64_t *)right;
    return (a > b) - (a < b);
}

static int presenter(const char *events, long steps, const char *control) {
    void *context = zmq_ctx_new();
    void *subscriber = zmq_socket(context, ZMQ_SUB);
    int unlimited = 0;
    zmq_setsockopt(subscriber, ZMQ_RCVHWM, &unlimited, sizeof unlimited);
    zmq_setsockopt(subscriber, ZMQ_SUBSCRIBE, topic, sizeof topic - 1);
    if (zmq_connect(subscriber, events) != 0) fail(events);
    void *socket = control ? dealer(context, control, "bench/main") : NULL;
    // The subscription is in place once its confirmation arrives (flowd: a HEARTBEAT; the relay: `subscribed`).
    int timeout = 30000;
    zmq_setsockopt(subscriber, ZMQ_RCVTIMEO, &timeout, sizeof timeout);
    zmq_msg_t parts[6];
    int count = receive_message(subscriber, parts, 6, 0);
    if (count == 0) {
        fprintf(stderr, "flowbench-anchor: the subscription was never confirmed\n");
        return 1;
    }
    close_parts(parts, count);
    if (socket) register_peer(socket, "presenter", "bench/main", "main");
    say("ready");
    int64_t *latencies = malloc(sizeof(int64_t) * (size_t)(steps > 0 ? steps : 1));
    long received = 0;
    int64_t last_heartbeat = now_ns();
    static const char heartbeat_header[] = "{\"id\":1,\"sentAt\":0,\"sender\":\"bench/main\"}";
    while (received < steps) {
        count = receive_message(subscriber, parts, 6, 0);
        if (count == 0) break;
        int64_t now = now_ns();
        int64_t stamp = stamp_in(&parts[count - 1]);
        if (count >= 5 && stamp >= 0) latencies[received++] = now - stamp;
        close_parts(parts, count);
        // A presenter stays registered: a HEARTBEAT a second while commands come (the answers are not read).
        if (socket && now - last_heartbeat > 1000000000) {
            send_message(socket, NULL, 0, "HEARTBEAT", heartbeat_header, sizeof heartbeat_header - 1, "{}", 2);
            last_heartbeat = now;
        }
    }
    qsort(latencies, (size_t)received, sizeof(int64_t), compare);
#define AT(fraction) (received ? latencies[(long)((double)received * (fraction)) < received ? (long)((double)received * (fraction)) : received - 1] : 0)
    printf("done p50=%" PRId64 " p99=%" PRId64 " p999=%" PRId64 " n=%ld\n", AT(0.5), AT(0.99), AT(0.999), received);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 6 && strcmp(argv[1], "wsstepper") == 0) {
        return ws_stepper(atoi(argv[2]), argv[3], atol(argv[4]), atol(argv[5]));
    }
    if (argc >= 4 && strcmp(argv[1], "wspresenter") == 0) return ws_presenter(atoi(argv[2]), atol(argv[3]));
    if (argc >= 4 && strcmp(argv[1], "wsidle") == 0) return ws_idle(atoi(argv[2]), atol(argv[3]));
    if (argc >= 4 && strcmp(argv[1], "wsfeed") == 0) return ws_feed(atoi(argv[2]), argv[3]);
    if (argc >= 5 && strcmp(argv[1], "relay") == 0) return relay(argv[2], argv[3], strcmp(argv[4], "ack") == 0);
    if (argc >= 6 && strcmp(argv[1], "stepper") == 0) {
        return stepper(argv[2], argv[3], atol(argv[4]), atol(argv[5]), argc >= 7 && strcmp(argv[6], "hello") == 0);
    }
    if (argc >= 4 && strcmp(argv[1], "presenter") == 0) return presenter(argv[2], atol(argv[3]), argc >= 5 ? argv[4] : NULL);
    fprintf(stderr,
            "usage: flowbench-anchor relay CONTROL EVENTS raw|ack\n"
            "       flowbench-anchor stepper CONTROL NAME STEPS WINDOW [hello]\n"
            "       flowbench-anchor presenter EVENTS STEPS [CONTROL]\n"
            "       flowbench-anchor wsstepper PORT NAME STEPS WINDOW\n"
            "       flowbench-anchor wspresenter PORT STEPS\n"
            "       flowbench-anchor wsidle PORT COUNT\n"
            "       flowbench-anchor wsfeed PORT SESSION\n");
    return 64;
}
