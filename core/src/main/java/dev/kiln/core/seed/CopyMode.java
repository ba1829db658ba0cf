package dev.kiln.core.seed;

/**
 * How a seed copy moved file contents, as uv names its link modes: said in every {@link CopyReport} so a slow copy
 * can be told from a refused fast path.
 */
public enum CopyMode {
    /**
     * In the kernel: {@code FileChannel.transferTo} from file to file, which is {@code copy_file_range} on JDK 21+
     * ({@code sendfile} on 17); the bytes never enter the JVM, and a filesystem with reflinks may share extents.
     */
    KERNEL("kernel"),
    /** Through a user-space buffer: read then write. What a filesystem or channel that refuses the kernel path gets. */
    STREAM("stream");

    private final String label;

    CopyMode(String label) {
        this.label = label;
    }

    /** The lower_snake name used in JSON and on the wire (the {@code seed_copied} event's {@code report.mode}). */
    @com.fasterxml.jackson.annotation.JsonValue
    public String label() {
        return label;
    }
}
