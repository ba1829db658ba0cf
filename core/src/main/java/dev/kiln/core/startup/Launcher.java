package dev.kiln.core.startup;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * How a stdio server's command starts it: through a package manager that may fetch the package first ({@code npx},
 * {@code npm exec}, {@code uvx}, {@code uv tool run}, {@code pipx run}; also recognised, without a reader of their
 * output: {@code bunx}, {@code pnpm dlx}, {@code yarn dlx}), or directly ({@code node}, a Python interpreter), or
 * something Kiln does not know. The runtime behind it decides the advice: bytecode for Python, Node's compile cache
 * for Node, a seed for a fetching launcher, and nothing invented for an unknown one.
 */
public enum Launcher {
    NPX("npx", Runtime.NODE, true),
    NPM_EXEC("npm exec", Runtime.NODE, true),
    UVX("uvx", Runtime.PYTHON, true),
    UV_TOOL_RUN("uv tool run", Runtime.PYTHON, true),
    PIPX_RUN("pipx run", Runtime.PYTHON, true),
    BUNX("bunx", Runtime.UNKNOWN, true),
    PNPM_DLX("pnpm dlx", Runtime.NODE, true),
    YARN_DLX("yarn dlx", Runtime.NODE, true),
    NODE("node", Runtime.NODE, false),
    PYTHON("python", Runtime.PYTHON, false),
    /** A program Kiln does not recognise: no phase split, no advice. */
    OTHER("other", Runtime.UNKNOWN, false);

    /** What runs the server's code once it started. */
    public enum Runtime {
        NODE, PYTHON, UNKNOWN;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** uv's progress lines ({@code Resolved 31 packages in 1.2s}, {@code Downloading x (2MiB)}, {@code  + pkg==1}). */
    private static final Pattern UV_LINE = Pattern.compile(
            "^\\s*(Resolved|Prepared|Installed|Uninstalled|Audited|Downloading|Downloaded|Building|Built|Using|Updated|Bytecode compiled)\\b.*"
                    + "|^ [+-~] \\S+.*|^(warning|hint): .*");
    private static final Pattern UV_DOWNLOAD = Pattern.compile("^\\s*(Prepared|Downloading|Downloaded|Building|Built)\\b.*");
    /** npm's own lines: {@code npm warn exec …}, {@code npm http fetch GET 200 … (cache miss)}, {@code npm error …}. */
    private static final Pattern NPM_LINE = Pattern.compile("^npm (warn|WARN|error|ERR!|http|info|verbose|verb|timing|notice|sill|silly)\\b.*");

    private final String label;
    private final Runtime runtime;
    private final boolean fetches;

    Launcher(String label, Runtime runtime, boolean fetches) {
        this.label = label;
        this.runtime = runtime;
        this.fetches = fetches;
    }

    /** For people and JSON: {@code npx}, {@code uv tool run}, … */
    public String label() {
        return label;
    }

    public Runtime runtime() {
        return runtime;
    }

    /** Whether it may download the package before the server runs. */
    public boolean fetches() {
        return fetches;
    }

    /** Whether Kiln reads this launcher's own output (and so can tell its lines from the server's). */
    public boolean readsOutput() {
        return this == NPX || this == NPM_EXEC || this == UVX || this == UV_TOOL_RUN;
    }

    /** The launcher of {@code server} (HTTP servers: {@link #OTHER}). */
    public static Launcher of(ServerConfig server) {
        return server.transport() == ServerConfig.Transport.STDIO ? of(server.program(), server.args()) : OTHER;
    }

    /** The launcher of a command line. */
    public static Launcher of(String command, List<String> args) {
        String base = Path.of(command).getFileName().toString().toLowerCase(Locale.ROOT);
        String first = args.isEmpty() ? "" : args.get(0);
        String second = args.size() < 2 ? "" : args.get(1);
        switch (base) {
            case "npx":
                return NPX;
            case "npm":
                return first.equals("exec") || first.equals("x") ? NPM_EXEC : OTHER;
            case "uvx":
                return UVX;
            case "uv":
                return first.equals("tool") && (second.equals("run") || second.equals("uvx")) ? UV_TOOL_RUN : OTHER;
            case "pipx":
                return first.equals("run") ? PIPX_RUN : OTHER;
            case "bunx":
                return BUNX;
            case "pnpm":
                return first.equals("dlx") ? PNPM_DLX : OTHER;
            case "yarn":
                return first.equals("dlx") ? YARN_DLX : OTHER;
            case "node":
            case "nodejs":
                return NODE;
            default:
                return base.matches("python(\\d+(\\.\\d+)?)?") ? PYTHON : OTHER;
        }
    }

    /** Whether {@code line} (of stderr) is this launcher's own, not the server's. */
    boolean ownsLine(String line) {
        return switch (this) {
            case NPX, NPM_EXEC -> NPM_LINE.matcher(line).matches();
            case UVX, UV_TOOL_RUN -> UV_LINE.matcher(line).matches();
            default -> false;
        };
    }

    /** Whether {@code line} says the launcher downloaded (or built) something. */
    boolean saysDownloaded(String line) {
        return switch (this) {
            case NPX, NPM_EXEC -> line.contains("will be installed") || line.startsWith("npm http fetch") && line.contains("cache miss");
            case UVX, UV_TOOL_RUN -> UV_DOWNLOAD.matcher(line).matches();
            default -> false;
        };
    }

    /**
     * The cache directory whose entries grow when this launcher installs something new ({@code _npx} of npm's cache,
     * {@code archive-v0} of uv's), under the server's environment; null when Kiln does not know it.
     */
    @Nullable Path growingDir(Map<String, String> env) {
        String home = env.getOrDefault("HOME", System.getProperty("user.home"));
        switch (this) {
            case NPX, NPM_EXEC: {
                String c = env.getOrDefault("NPM_CONFIG_CACHE", env.get("npm_config_cache"));
                return (c != null ? Path.of(c) : Path.of(home, ".npm")).resolve("_npx");
            }
            case UVX, UV_TOOL_RUN: {
                String c = env.get("UV_CACHE_DIR");
                if (c != null) {
                    return Path.of(c).resolve("archive-v0");
                }
                String xdg = env.get("XDG_CACHE_HOME");
                return (xdg != null ? Path.of(xdg, "uv") : Path.of(home, ".cache", "uv")).resolve("archive-v0");
            }
            default:
                return null;
        }
    }

    /** What shortens the time before a server's first output, for this runtime (empty: nothing Kiln knows). */
    public String importAdvice() {
        return switch (runtime) {
            case PYTHON -> "precompiled bytecode shortens this (kiln bytecode compile)";
            case NODE -> "Node's compile cache (NODE_COMPILE_CACHE, Node 22.1 or later) shortens this";
            case UNKNOWN -> "";
        };
    }

    /** What removes a fetch phase: a seed. */
    public String fetchAdvice() {
        return fetches ? "a runtime seed removes the download (kiln warm --servers), its installed form the package"
                + " manager itself" : "";
    }
}
