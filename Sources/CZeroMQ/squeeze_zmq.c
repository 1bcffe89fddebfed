#include "squeeze_zmq.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

// Every function the wrappers forward to: return type, name, parameters, arguments, and what
// the wrapper returns when libzmq is not loaded.
#define SQUEEZE_ZMQ_FUNCTIONS(X) \
    X(void *, ctx_new, (void), (), NULL) \
    X(int, ctx_term, (void *c), (c), -1) \
    X(int, ctx_set, (void *c, int o, int v), (c, o, v), -1) \
    X(void *, socket, (void *c, int t), (c, t), NULL) \
    X(int, close, (void *s), (s), -1) \
    X(int, setsockopt, (void *s, int o, const void *v, size_t n), (s, o, v, n), -1) \
    X(int, getsockopt, (void *s, int o, void *v, size_t *n), (s, o, v, n), -1) \
    X(int, bind, (void *s, const char *a), (s, a), -1) \
    X(int, connect, (void *s, const char *a), (s, a), -1) \
    X(int, send, (void *s, const void *b, size_t n, int f), (s, b, n, f), -1) \
    X(int, socket_monitor, (void *s, const char *a, int e), (s, a, e), -1) \
    X(int, poll, (zmq_pollitem_t *i, int n, long t), (i, n, t), -1) \
    X(int, msg_init, (zmq_msg_t *m), (m), -1) \
    X(int, msg_init_size, (zmq_msg_t *m, size_t n), (m, n), -1) \
    X(int, msg_init_data, (zmq_msg_t *m, void *d, size_t n, zmq_free_fn *f, void *h), (m, d, n, f, h), -1) \
    X(int, msg_send, (zmq_msg_t *m, void *s, int f), (m, s, f), -1) \
    X(int, msg_recv, (zmq_msg_t *m, void *s, int f), (m, s, f), -1) \
    X(int, msg_close, (zmq_msg_t *m), (m), -1) \
    X(void *, msg_data, (zmq_msg_t *m), (m), NULL) \
    X(size_t, msg_size, (const zmq_msg_t *m), (m), 0) \
    X(int, msg_more, (const zmq_msg_t *m), (m), 0) \
    X(int, msg_get, (const zmq_msg_t *m, int p), (m, p), -1) \
    X(const char *, msg_gets, (const zmq_msg_t *m, const char *p), (m, p), NULL) \
    X(int, has, (const char *c), (c), 0) \
    X(int, curve_public, (char *p, const char *s), (p, s), -1) \
    X(int, curve_keypair, (char *p, char *s), (p, s), -1) \
    X(uint8_t *, z85_decode, (uint8_t *d, const char *s), (d, s), NULL) \
    X(char *, z85_encode, (char *d, const uint8_t *b, size_t n), (d, b, n), NULL)

static struct {
#define SQUEEZE_ZMQ_POINTER(type, name, parameters, arguments, failed) type(*name) parameters;
    SQUEEZE_ZMQ_FUNCTIONS(SQUEEZE_ZMQ_POINTER)
#undef SQUEEZE_ZMQ_POINTER
    // Named apart: `errno` is a macro, and both must answer when loading failed.
    int (*error_number)(void);
    const char *(*error_string)(int);
    int loaded;
    char failure[512];
} library;

static pthread_once_t library_once = PTHREAD_ONCE_INIT;

static void library_load(void) {
    // RTLD_LOCAL: its symbols stay out of the global scope; libzmq's ABI is versioned by soname.
    void *handle = dlopen("libzmq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *reason = dlerror();
        snprintf(library.failure, sizeof library.failure, "libzmq could not be loaded (install libzmq5): %s",
                 reason ? reason : "unknown reason");
        return;
    }
#define SQUEEZE_ZMQ_RESOLVE(type, name, parameters, arguments, failed) \
    *(void **)(&library.name) = dlsym(handle, "zmq_" #name); \
    if (library.name == NULL) { \
        snprintf(library.failure, sizeof library.failure, "libzmq.so.5 lacks zmq_%s", #name); \
        return; \
    }
    SQUEEZE_ZMQ_FUNCTIONS(SQUEEZE_ZMQ_RESOLVE)
#undef SQUEEZE_ZMQ_RESOLVE
    *(void **)(&library.error_number) = dlsym(handle, "zmq_errno");
    *(void **)(&library.error_string) = dlsym(handle, "zmq_strerror");
    if (library.error_number == NULL || library.error_string == NULL) {
        snprintf(library.failure, sizeof library.failure, "libzmq.so.5 lacks zmq_errno or zmq_strerror");
        return;
    }
    library.loaded = 1;
}

int squeeze_zmq_load(void) {
    pthread_once(&library_once, library_load);
    if (!library.loaded) errno = ELIBACC;
    return library.loaded;
}

#define SQUEEZE_ZMQ_FORWARD(type, name, parameters, arguments, failed) \
    type squeeze_zmq_##name parameters { \
        if (!squeeze_zmq_load()) return failed; \
        return library.name arguments; \
    }
SQUEEZE_ZMQ_FUNCTIONS(SQUEEZE_ZMQ_FORWARD)
#undef SQUEEZE_ZMQ_FORWARD

int squeeze_zmq_errno(void) {
    // Not loaded: the error is the loader's, in errno.
    return squeeze_zmq_load() ? library.error_number() : errno;
}

const char *squeeze_zmq_strerror(int errnum) {
    if (!squeeze_zmq_load()) return errnum == ELIBACC ? library.failure : strerror(errnum);
    return library.error_string(errnum);
}
