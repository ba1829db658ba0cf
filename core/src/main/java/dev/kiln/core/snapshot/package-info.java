/**
 * Immutable snapshots of the contracts under {@code tasks/}: {@link dev.kiln.core.snapshot.SnapshotBuilder} walks the
 * tree (or applies changed paths) and reuses parses whose stat identity is unchanged, giving a
 * {@link dev.kiln.core.snapshot.ContractSnapshot} with its failures and {@link dev.kiln.core.snapshot.SnapshotStats}.
 * The walk is package-private.
 */
@NullMarked
package dev.kiln.core.snapshot;

import org.jspecify.annotations.NullMarked;
