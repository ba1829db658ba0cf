package dev.kiln.core.contract;

/** A contract file could not be read as a contract; {@link #kind()} says why in one word, the message in full. */
public final class ContractReadException extends Exception {
    private static final long serialVersionUID = 1L;

    /** Why a contract could not be read. */
    public enum Kind {
        /** Larger than the per-file limit; never read into memory. */
        TOO_LARGE,
        /** Bytes that are not UTF-8. */
        NOT_UTF8,
        /** Not JSON, or JSON that is not an object. */
        MALFORMED,
        /** JSON whose known fields have the wrong shape (e.g. a deadline that is not an instant). */
        INVALID,
        /** The file could not be read at all. */
        IO_ERROR
    }

    private final Kind kind;

    public ContractReadException(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public ContractReadException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
