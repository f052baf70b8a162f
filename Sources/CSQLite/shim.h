#ifndef FLOWBUS_CSQLITE_SHIM_H
#define FLOWBUS_CSQLITE_SHIM_H

// SQLite 3 from Debian's libsqlite3-dev. Only the FlowStore target imports this module.
#include <sqlite3.h>

#endif
