/**
 * Source archive cache: the deterministic {@code tar.gz} of a source tree uploaded to every sandbox
 * ({@link dev.kiln.core.archive.SourceArchive}), memoized while its files are unchanged
 * ({@link dev.kiln.core.archive.ArchiveCache}), with safe extraction. The walk, tar and gzip writers and the
 * validation manifest are package-private.
 */
@NullMarked
package dev.kiln.core.archive;

import org.jspecify.annotations.NullMarked;
