/* The plugin ABI is declared in include/restmap_plugin.h; this file gives the C target a source. */
#include "restmap_plugin.h"
