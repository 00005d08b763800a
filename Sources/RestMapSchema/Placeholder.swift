enum RestMapSchemaPlaceholder {}
