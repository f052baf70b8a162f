#ifndef FLOWBUS_CZEROMQ_SHIM_H
#define FLOWBUS_CZEROMQ_SHIM_H

// libzmq 4.3 from Debian's libzmq3-dev. Only the ZeroMQ target imports this module.
#include <zmq.h>

#endif
