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
        IO_ERROR,
        /**
         * A file Kiln will not read. The policy, because {@code state.json} and {@code /api/state} are readable by
         * anyone who can reach the workspace: a contract is read only from a regular file named {@code contract.json};
         * that file is never read through a symlink (even one staying inside {@code tasks/}: one rule, checked by the
         * open itself with {@code O_NOFOLLOW}, so there is no check-then-use race), so no link can make the daemon
         * read {@code observer/api-token} or another mode-600 file as a contract. FIFOs, sockets and devices are
         * refused the same way and never block a read. Directory symlinks are still followed (a leaf may live
         * elsewhere), loops refused. Failure messages never quote a file's bytes: they say where (line, column) and
         * what kind of error, so a failure anyone can read leaks nothing of the file.
         */
        REFUSED
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
