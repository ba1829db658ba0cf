/**
 * The workspace on disk: its layout ({@link dev.kiln.core.workspace.WorkspaceLayout}), settings
 * ({@code kiln.toml}, {@link dev.kiln.core.workspace.WorkspaceSettings}), its one error type
 * ({@link dev.kiln.core.workspace.WorkspaceException}) and the file helpers every engine uses (atomic writes, tree
 * copies and deletes, duration parsing).
 */
@NullMarked
package dev.kiln.core.workspace;

import org.jspecify.annotations.NullMarked;
