//! myriad's caches, with no SQL and no file format: the table definition and table handle
//! caches, the file (descriptor) cache, the block cache (key cache) and the query-result
//! cache. Reusable by any engine; every other crate of myriad reaches files and pages
//! through here.
