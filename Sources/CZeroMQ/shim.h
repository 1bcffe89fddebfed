#ifndef SQUEEZE_CZEROMQ_SHIM_H
#define SQUEEZE_CZEROMQ_SHIM_H
#include <zmq.h>
// eventfd wakes an endpoint's I/O thread out of zmq_poll; Glibc's Swift module lacks it.
#include <sys/eventfd.h>
#endif
