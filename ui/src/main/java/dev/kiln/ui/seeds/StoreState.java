package dev.kiln.ui.seeds;

import dev.kiln.core.store.SeedPresence;
import dev.kiln.core.store.ServerSeedPresence;
import dev.kiln.core.store.StoreStatus;
import java.util.Optional;

/**
 * Where a target's seed for its current lockfile is, against the workspace's object store, as an operator reads it:
 * a word, a glyph and a style (theme colours), never the colour alone. Derived by {@link #of}, a pure function.
 */
public enum StoreState {
    /** Only this host (the engine's) has it: push offers. */
    LOCAL("local only", "▲", "state-info"),
    /** Only the store has it: pull offers. */
    STORE("in the store", "▼", "state-info"),
    /** Both, the same copy. */
    BOTH("in both", "✓", "state-ok"),
    /** Both, warmed separately (their hashes differ): a pull replaces this host's with the store's. */
    DIFFERING("differing", "≠", "state-warn"),
    /** Neither has a seed for this lockfile. */
    NONE("in neither", "–", "state-muted"),
    /** kiln.json names no store. */
    NOT_CONFIGURED("no store", "○", "state-muted"),
    /** The store could not be asked (down, refused, no credentials); the reason says why. */
    UNREACHABLE("store unreachable", "✕", "state-bad"),
    /** Not asked yet (the page is reading it). */
    UNKNOWN("checking…", "…", "state-muted"),
    /** A server seed whose store key cannot be known here (an unpinned spec never warmed, a seed no config uses now). */
    UNMATCHED("not compared", "?", "state-muted");

    private final String word;
    private final String glyph;
    private final String styleClass;

    StoreState(String word, String glyph, String styleClass) {
        this.word = word;
        this.glyph = glyph;
        this.styleClass = styleClass;
    }

    public String word() {
        return word;
    }

    /** A glyph beside the word, so the state reads without its colour. */
    public String glyph() {
        return glyph;
    }

    /** The style class that colours it from the theme's variables. */
    public String styleClass() {
        return styleClass;
    }

    /** The glyph and the word, as the table shows them. */
    public String label() {
        return glyph + " " + word;
    }

    /** Whether a push of the target's seed has something to send (a local seed of the current lockfile). */
    public boolean offersPush() {
        return this == LOCAL || this == DIFFERING || this == BOTH || this == UNREACHABLE;
    }

    /** Whether a pull has something to take (the store has the lockfile's seed). */
    public boolean offersPull() {
        return this == STORE || this == DIFFERING || this == BOTH || this == UNREACHABLE;
    }

    /**
     * A state and why.
     *
     * @param state the state
     * @param reason for a person: the store's object (hash, size) or why it could not be asked; empty when nothing to add
     */
    public record Status(StoreState state, String reason) {
    }

    /**
     * The store state of {@code target}.
     *
     * @param status the engine's answer: empty when no store is configured
     * @param readError why the engine could not be asked at all (the daemon down), or empty
     */
    public static Status of(String target, Optional<StoreStatus> status, String readError) {
        if (!readError.isEmpty()) {
            return new Status(UNREACHABLE, readError);
        }
        if (status.isEmpty()) {
            return new Status(NOT_CONFIGURED, "kiln.json names no store; add \"store\": {\"url\": \"s3://bucket/prefix\","
                    + " \"endpoint\": …}");
        }
        for (SeedPresence p : status.get().seeds()) {
            if (p.target().equals(target)) {
                String object = p.store().map(m -> "store object sha256 " + m.sha256().substring(0, Math.min(12, m.sha256().length()))
                        + ", " + SeedsView.mib(m.bytes()) + ", " + m.files() + " files, pushed " + m.pushedAt()).orElse("");
                return switch (p.place()) {
                    case LOCAL -> new Status(LOCAL, "the store has no seed for lockfile " + SeedsViewModel.shortHash(p.lockHash()));
                    case STORE -> new Status(STORE, object);
                    case BOTH -> new Status(BOTH, object);
                    case DIFFERING -> new Status(DIFFERING, "warmed separately here; " + object);
                    case NONE -> new Status(NONE, "");
                };
            }
        }
        return new Status(UNREACHABLE, status.get().problem().orElse("the store did not say"));
    }

    /**
     * The store state of server {@code server}'s runtime seed, from the engine's {@code serverStoreStatus()} (its
     * {@link StoreStatus#servers}); the presence's note (why there is no key, a corrupt seed here, a uv seed that does
     * not travel) joins the reason.
     */
    public static Status ofServer(String server, Optional<StoreStatus> status, String readError) {
        if (!readError.isEmpty()) {
            return new Status(UNREACHABLE, readError);
        }
        if (status.isEmpty()) {
            return new Status(NOT_CONFIGURED, "kiln.json names no store; add \"store\": {\"url\": \"s3://bucket/prefix\","
                    + " \"endpoint\": …}");
        }
        for (ServerSeedPresence p : status.get().servers()) {
            if (!p.server().equals(server)) {
                continue;
            }
            String note = p.note();
            if (p.place().isEmpty()) {
                return new Status(UNMATCHED, note);
            }
            String object = p.store().map(m -> "store object sha256 " + m.sha256().substring(0, Math.min(12, m.sha256().length()))
                    + ", " + SeedsView.mib(m.bytes()) + ", " + m.files() + " files, pushed " + m.pushedAt()).orElse("");
            Status st = switch (p.place().get()) {
                case LOCAL -> new Status(LOCAL, "the store has no seed of " + p.key().map(Object::toString).orElse("it"));
                case STORE -> new Status(STORE, object);
                case BOTH -> new Status(BOTH, object);
                case DIFFERING -> new Status(DIFFERING, "warmed separately here; " + object);
                case NONE -> new Status(NONE, "");
            };
            return note.isEmpty() ? st : new Status(st.state(), st.reason().isEmpty() ? note : st.reason() + "; " + note);
        }
        return status.get().problem().isPresent() ? new Status(UNREACHABLE, status.get().problem().get())
                : new Status(UNMATCHED, "no server's config uses this seed now: it is pushed and pulled by its server's name");
    }
}
