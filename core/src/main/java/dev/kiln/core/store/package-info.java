/**
 * Seeds and archives through an S3-compatible object store (docs/ARCHITECTURE.md, "The object store"):
 * {@link dev.kiln.core.store.ObjectStore} pushes and pulls immutable, content-addressed objects, each with a small
 * manifest beside it, keyed by {@link dev.kiln.core.store.StoreKey}. The S3 client, the packing, the retries and the
 * credential chain are package-private.
 */
@NullMarked
package dev.kiln.core.store;

import org.jspecify.annotations.NullMarked;
