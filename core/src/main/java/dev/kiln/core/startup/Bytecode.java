package dev.kiln.core.startup;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * The Python bytecode audit and precompile for a server's environment.
 *
 * <p>A server whose environment ships no {@code .pyc} compiles its whole import graph on every cold start; on a
 * squeezed sandbox CPU that alone can miss a client's startup timeout. {@link #audit} counts, for the interpreter the
 * server really runs, how many sources have fresh bytecode by reading each pyc's header the way the import system
 * does; {@link #compile} runs that interpreter's {@code compileall} over the environment and audits again.
 */
public final class Bytecode {
    /** Source hashes of checked-hash pycs are computed by the interpreter itself: its keyed hash is not Kiln's to copy. */
    private static final String VERIFY_HASHES = String.join("\n",
            "import sys, importlib.util",
            "for line in sys.stdin:",
            "    src, want = line.rstrip('\\n').rsplit('\\t', 1)",
            "    try:",
            "        with open(src, 'rb') as f: ok = importlib.util.source_hash(f.read()).hex() == want",
            "    except OSError: ok = False",
            "    if not ok: print(src)");
    private static final int MAX_EXAMPLES = 10;

    /** How {@code compileall} makes pycs valid; {@code checked-hash} gives reproducible images. */
    public enum InvalidationMode {
        /** Valid while the source's mtime and size match (Python's default). */
        TIMESTAMP,
        /** Valid while the source's hash matches; independent of mtimes, so image layers are reproducible. */
        CHECKED_HASH,
        /** Always taken as valid: fastest, but an edited source is silently ignored. */
        UNCHECKED_HASH;

        /** The name {@code compileall --invalidation-mode} takes. */
        public String label() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        /** Parses {@code timestamp}, {@code checked-hash} or {@code unchecked-hash}. */
        public static InvalidationMode parse(String text) {
            for (InvalidationMode m : values()) {
                if (m.label().equals(text.trim().toLowerCase(Locale.ROOT))) {
                    return m;
                }
            }
            throw new IllegalArgumentException("invalidation mode '" + text + "' is not one of timestamp, checked-hash,"
                    + " unchecked-hash");
        }
    }

    /**
     * A precompile: the audits before and after, and what {@code compileall} said.
     *
     * @param before the audit before compiling
     * @param after the audit after compiling
     * @param mode the invalidation mode used
     * @param exitCode compileall's exit code (non-zero when some file did not compile, e.g. a Python-2-only test file)
     * @param output compileall's last output lines (errors only; it runs quietly)
     * @param elapsedMs how long compileall ran
     */
    public record CompileResult(BytecodeReport before, BytecodeReport after, InvalidationMode mode, int exitCode,
            List<String> output, double elapsedMs) {
        public CompileResult {
            output = List.copyOf(output);
        }
    }

    private final InterpreterLocator locator;

    private Bytecode(Map<String, String> environment) {
        this.locator = new InterpreterLocator(environment);
    }

    /** Uses Kiln's own environment (PATH) to find interpreters. */
    public static Bytecode withSystemEnvironment() {
        return new Bytecode(System.getenv());
    }

    /** Uses {@code environment} to find and run interpreters. */
    public static Bytecode withEnvironment(Map<String, String> environment) {
        return new Bytecode(Map.copyOf(environment));
    }

    /**
     * The environment {@code server} runs in: a Python command, a script's shebang, {@code uv run}'s project venv.
     *
     * @throws BytecodeException when it is not a Python server or its environment cannot be known before it runs
     */
    public PythonEnvironment locate(ServerConfig server) {
        return locator.locate(server);
    }

    /** The environment of a venv directory, an interpreter, or a script with a python shebang. */
    public PythonEnvironment locate(Path path) {
        return locator.locate(path);
    }

    /** Counts fresh, stale and missing bytecode under {@code env}'s roots for its interpreter. */
    public BytecodeReport audit(PythonEnvironment env) {
        Objects.requireNonNull(env, "env");
        Tally t = new Tally(env);
        for (Path root : env.roots()) {
            try {
                Files.walkFileTree(root, new SimpleFileVisitor<>() {
                    @Override
                    public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                        return dir.getFileName() != null && dir.getFileName().toString().equals("__pycache__")
                                ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                        if (attrs.isRegularFile() && file.getFileName().toString().endsWith(".py")) {
                            t.check(file, attrs);
                        }
                        return FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult visitFileFailed(Path file, IOException exc) {
                        return FileVisitResult.CONTINUE; // unreadable entries are not the audit's to judge
                    }
                });
            } catch (IOException e) {
                throw new BytecodeException("cannot walk " + root + ": " + e.getMessage(), e);
            }
        }
        t.verifyHashes();
        return new BytecodeReport(env, t.sources, t.fresh, t.stale, t.missing, t.unchecked, t.examples);
    }

    /**
     * Runs {@code <python> -m compileall -q -j 0 --invalidation-mode MODE} over {@code env}'s roots, then audits again.
     *
     * @throws BytecodeException when the interpreter cannot be run or compileall does not finish in 10 minutes
     */
    public CompileResult compile(PythonEnvironment env, InvalidationMode mode) {
        BytecodeReport before = audit(env);
        if (env.roots().isEmpty()) {
            return new CompileResult(before, before, mode, 0, List.of(), 0);
        }
        List<String> cmd = new ArrayList<>(List.of(env.interpreter().toString(), "-I", "-m", "compileall", "-q", "-j", "0",
                "--invalidation-mode", mode.label()));
        if (before.stale() > 0) {
            // compileall's own freshness check compares only the mtime, so a source edited within the second it was
            // compiled keeps its stale pyc; the audit found such files, so recompile everything.
            cmd.add("-f");
        }
        env.roots().forEach(r -> cmd.add(r.toString()));
        long start = System.nanoTime();
        int exit;
        List<String> output = new ArrayList<>();
        try {
            Path log = Files.createTempFile("kiln-compileall-", ".log");
            try {
                ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
                pb.environment().remove("PYTHONPYCACHEPREFIX"); // the pycs belong beside the sources, not elsewhere
                Process p = pb.start();
                p.getOutputStream().close();
                if (!p.waitFor(10, TimeUnit.MINUTES)) {
                    ProcessTree.end(p.toHandle(), 1_000);
                    throw new BytecodeException("compileall over " + env.roots() + " did not finish within 10 minutes");
                }
                exit = p.exitValue();
                List<String> lines = Files.readAllLines(log);
                output.addAll(lines.subList(Math.max(0, lines.size() - 20), lines.size()));
            } finally {
                Files.deleteIfExists(log);
            }
        } catch (IOException e) {
            throw new BytecodeException("cannot run " + env.interpreter() + " -m compileall: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BytecodeException("interrupted while compiling " + env.roots(), e);
        }
        double elapsed = (System.nanoTime() - start) / 1e6;
        return new CompileResult(before, audit(env), mode, exit, output, elapsed);
    }

    /** The running count of one audit. */
    private final class Tally {
        private final PythonEnvironment env;
        private final byte[] magic;
        long sources;
        long fresh;
        long stale;
        long missing;
        long unchecked;
        final List<String> examples = new ArrayList<>();
        /** Checked-hash pycs still to verify: source path, hash hex. */
        private final StringBuilder pendingHashes = new StringBuilder();
        private long pending;

        Tally(PythonEnvironment env) {
            this.env = env;
            this.magic = HexFormat.of().parseHex(env.magic());
        }

        void check(Path source, BasicFileAttributes attrs) {
            sources++;
            String name = source.getFileName().toString();
            Path pyc = source.resolveSibling("__pycache__")
                    .resolve(name.substring(0, name.length() - 3) + "." + env.cacheTag() + ".pyc");
            byte[] header;
            try (InputStream in = Files.newInputStream(pyc)) {
                header = in.readNBytes(16);
            } catch (java.nio.file.NoSuchFileException e) {
                missing++;
                example("missing", source);
                return;
            } catch (IOException e) {
                stale(source);
                return;
            }
            if (header.length < 16 || !java.util.Arrays.equals(header, 0, 4, magic, 0, 4)) {
                stale(source); // truncated, or written by another Python version
                return;
            }
            int flags = le32(header, 4);
            if ((flags & 0b1) == 0) {
                long mtime = le32(header, 8) & 0xFFFFFFFFL;
                long size = le32(header, 12) & 0xFFFFFFFFL;
                long srcMtime = attrs.lastModifiedTime().to(TimeUnit.SECONDS) & 0xFFFFFFFFL;
                if (mtime == srcMtime && size == (attrs.size() & 0xFFFFFFFFL)) {
                    fresh++;
                } else {
                    stale(source);
                }
            } else if ((flags & 0b10) == 0) {
                fresh++;
                unchecked++;
            } else {
                pendingHashes.append(source).append('\t').append(HexFormat.of().formatHex(header, 8, 16)).append('\n');
                pending++;
            }
        }

        void verifyHashes() {
            if (pending == 0) {
                return;
            }
            String out;
            try {
                out = locator.run(List.of(env.interpreter().toString(), "-I", "-c", VERIFY_HASHES), pendingHashes.toString(), 300);
            } catch (IOException e) {
                throw new BytecodeException("cannot verify checked-hash pycs with " + env.interpreter() + ": " + e.getMessage(), e);
            }
            long bad = 0;
            for (String line : out.split("\n")) {
                if (!line.isBlank()) {
                    bad++;
                    example("stale", Path.of(line));
                }
            }
            stale += bad;
            fresh += pending - bad;
        }

        private void stale(Path source) {
            stale++;
            example("stale", source);
        }

        private void example(String kind, Path source) {
            if (examples.size() < MAX_EXAMPLES) {
                examples.add(kind + ": " + source);
            }
        }
    }

    private static int le32(byte[] b, int off) {
        return (b[off] & 0xFF) | (b[off + 1] & 0xFF) << 8 | (b[off + 2] & 0xFF) << 16 | (b[off + 3] & 0xFF) << 24;
    }
}
