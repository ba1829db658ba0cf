package dev.kiln.core.archive;

/**
 * The member files of an archive add up to more than the bound it was asked under: refused before any file is read
 * (the walk sums their sizes first), or while reading when a file grew past it. An archive is held in memory while it
 * is built, so without this a large tree ran the daemon out of heap.
 */
public final class ArchiveTooLargeException extends ArchiveException {
    private static final long serialVersionUID = 1L;

    private final long limit;

    ArchiveTooLargeException(String message, long limit) {
        super(message);
        this.limit = limit;
    }

    /** The bound, in bytes of member files. */
    public long limit() {
        return limit;
    }
}
