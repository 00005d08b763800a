enum RestMapJSONPlaceholder {}
