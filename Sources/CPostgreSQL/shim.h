#ifndef FLOWBUS_CPOSTGRESQL_SHIM_H
#define FLOWBUS_CPOSTGRESQL_SHIM_H

// libpq from Debian's libpq-dev: PostgreSQL's own client library. Only the FlowStore target imports this module.
#include <postgresql/libpq-fe.h>

#endif
