//! On-disk tables: the datadir catalog, one file per table (definition, rows and indexes in
//! fixed-size pages), B+tree indexes, the redo log and crash recovery. Every page is read and
//! written through `myriad_cache`'s block cache; tables are opened through its table cache.
