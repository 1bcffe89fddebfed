#ifndef SQUEEZE_ZMQ_H
#define SQUEEZE_ZMQ_H
// libzmq's types and constants. Its functions are called through the `squeeze_zmq_` wrappers
// below, never by their own names: the binary does not link libzmq, so a command that opens no
// socket (the gzip drop-in, `--version`) does not load it and its eleven libraries at start.
#include <zmq.h>
// eventfd wakes an endpoint's I/O thread out of zmq_poll; Glibc's Swift module lacks it.
#include <sys/eventfd.h>

/// Loads libzmq (`libzmq.so.5`) once, on the first call of any wrapper, from any thread.
/// Returns 1 when it is loaded with every function the wrappers need, else 0; the reason is
/// then what `squeeze_zmq_strerror(squeeze_zmq_errno())` says.
int squeeze_zmq_load(void);

// Each is libzmq's function of the same name without the prefix, loaded on first use. When
// libzmq cannot be loaded, those that report errors fail with errno ELIBACC (-1, or NULL), and
// `squeeze_zmq_has` answers 0.
int squeeze_zmq_errno(void);
const char *squeeze_zmq_strerror(int errnum);
void *squeeze_zmq_ctx_new(void);
int squeeze_zmq_ctx_term(void *context);
int squeeze_zmq_ctx_set(void *context, int option, int value);
void *squeeze_zmq_socket(void *context, int type);
int squeeze_zmq_close(void *socket);
int squeeze_zmq_setsockopt(void *socket, int option, const void *value, size_t length);
int squeeze_zmq_getsockopt(void *socket, int option, void *value, size_t *length);
int squeeze_zmq_bind(void *socket, const char *address);
int squeeze_zmq_connect(void *socket, const char *address);
int squeeze_zmq_send(void *socket, const void *buffer, size_t length, int flags);
int squeeze_zmq_socket_monitor(void *socket, const char *address, int events);
int squeeze_zmq_poll(zmq_pollitem_t *items, int count, long timeout);
int squeeze_zmq_msg_init(zmq_msg_t *message);
int squeeze_zmq_msg_init_size(zmq_msg_t *message, size_t size);
int squeeze_zmq_msg_init_data(zmq_msg_t *message, void *data, size_t size, zmq_free_fn *free, void *hint);
int squeeze_zmq_msg_send(zmq_msg_t *message, void *socket, int flags);
int squeeze_zmq_msg_recv(zmq_msg_t *message, void *socket, int flags);
int squeeze_zmq_msg_close(zmq_msg_t *message);
void *squeeze_zmq_msg_data(zmq_msg_t *message);
size_t squeeze_zmq_msg_size(const zmq_msg_t *message);
int squeeze_zmq_msg_more(const zmq_msg_t *message);
int squeeze_zmq_msg_get(const zmq_msg_t *message, int property);
const char *squeeze_zmq_msg_gets(const zmq_msg_t *message, const char *property);
int squeeze_zmq_has(const char *capability);
int squeeze_zmq_curve_public(char *z85_public, const char *z85_secret);
int squeeze_zmq_curve_keypair(char *z85_public, char *z85_secret);
uint8_t *squeeze_zmq_z85_decode(uint8_t *destination, const char *string);
char *squeeze_zmq_z85_encode(char *destination, const uint8_t *data, size_t size);

#endif
