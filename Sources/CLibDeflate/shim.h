#ifndef SQUEEZE_CLIBDEFLATE_SHIM_H
#define SQUEEZE_CLIBDEFLATE_SHIM_H
#include <libdeflate.h>
#endif
