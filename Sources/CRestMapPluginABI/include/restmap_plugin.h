#ifndef RESTMAP_PLUGIN_H
#define RESTMAP_PLUGIN_H
/* The RestMap plugin ABI. See Docs/Plugins.md. (To be completed.) */
#define RESTMAP_PLUGIN_ABI_VERSION 1
#endif
