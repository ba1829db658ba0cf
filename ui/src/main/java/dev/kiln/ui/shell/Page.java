package dev.kiln.ui.shell;

/** The console's pages, in sidebar order, with what each shows. */
public enum Page {
    PROJECTION("Projection", "The live projection of the workspace: revision, last tick and why it woke, watch health, parse counters."),
    CONTRACTS("Contracts", "Every task contract of the workspace with its leaf id; legacy ids and unreadable files stand out."),
    CACHES("Caches", "Source archive cache: hits, misses, builds, evictions and bytes held, live."),
    SEEDS("Seeds", "Seed caches per target: lockfile hash, last warm and its outcome; rewarm a target."),
    STARTUP("Startup", "MCP server startup timelines against the client's startup timeout; bytecode audit and precompile."),
    EVENTS("Events", "Everything the engine publishes, newest first: ticks, cache hits, warm progress, probe steps."),
    FLEET("Fleet", "Every daemon of your list at once, live: reachable, revision, projection age, watch, contracts, stale seeds, last probe.");

    private final String title;
    private final String description;

    Page(String title, String description) {
        this.title = title;
        this.description = description;
    }

    public String title() {
        return title;
    }

    public String description() {
        return description;
    }

    /** A stable id for lookups in tests and CSS: {@code nav-contracts}. */
    public String navId() {
        return "nav-" + name().toLowerCase(java.util.Locale.ROOT);
    }
}
