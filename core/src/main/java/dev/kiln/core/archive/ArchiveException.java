package dev.kiln.core.archive;

/**
 * An archive cannot be built, served or extracted. The message says what happened, where (root, member or
 * entry) and, where there is one, what to do about it. {@link ArchiveTooLargeException} is the one refinement.
 */
public class ArchiveException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ArchiveException(String message) {
        super(message);
    }

    public ArchiveException(String message, Throwable cause) {
        super(message, cause);
    }
}
