/* Placeholder: the versioned plugin ABI is defined in restmap_plugin.h. */
