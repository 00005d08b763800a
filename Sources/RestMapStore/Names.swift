import GRDB
import RestMap

/// GRDB also has a `Record`; inside this module the name means RestMap's.
typealias Record = RestMap.Record
