@_exported import RestMapPluginKit
