package dev.kiln.app.cli;

import dev.kiln.app.common.CliException;
import dev.kiln.app.common.Json;
import dev.kiln.app.common.JsonOption;
import dev.kiln.core.archive.ArchiveException;
import dev.kiln.core.archive.SourceArchive;
import dev.kiln.core.telemetry.Figures;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code kiln archive SRC}: builds the deterministic tar.gz of a source tree and reports its address. */
@Command(name = "archive", mixinStandardHelpOptions = true,
        header = "Build the deterministic tar.gz of a source tree.",
        description = {"Build the deterministic tar.gz of SRC (or of its named top-level members) and print its sha256,",
            "size, entries and build time. The same tree gives the same bytes in any process.",
            "kiln archive push DIR|URL|NAME SRC … stores it in the workspace's object store, keyed by its SHA-256;",
            "kiln archive pull DIR|URL|NAME SHA256 [-o OUT] fetches one back, checked against that SHA-256 (a daemon",
            "named by URL or NAME does either on its own host, with its own credentials)."},
        subcommands = {ArchiveCommand.Push.class, ArchiveCommand.Pull.class})
final class ArchiveCommand implements Callable<Integer> {

    // Optional to picocli: a required one here would be asked of "kiln archive push …" too (the parent is validated first).
    @Parameters(index = "0", arity = "0..1", paramLabel = "SRC", description = "Source root directory.")
    Path source;

    @Option(names = {"-m", "--member"}, paramLabel = "M",
            description = "A top-level file or directory of SRC to include (repeatable; default: all of SRC).")
    List<String> members = new ArrayList<>();

    @Option(names = {"-x", "--exclude"}, paramLabel = "GLOB",
            description = "Leave out paths with a component matching GLOB, in addition to the defaults (repeatable).")
    List<String> excludes = new ArrayList<>();

    @Option(names = "--no-default-excludes",
            description = "Do not leave out __pycache__, .venv, .git, .pytest_cache, .mypy_cache, .ruff_cache, node_modules, *.pyc.")
    boolean noDefaultExcludes;

    @Option(names = {"-o", "--output"}, paramLabel = "OUT", description = "Write the archive to OUT (atomically).")
    Path output;

    @Mixin
    JsonOption json;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        if (source == null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "Missing required parameter: 'SRC' (or name a"
                    + " sub-command: push, pull)");
        }
        List<String> ex = new ArrayList<>(noDefaultExcludes ? List.of() : SourceArchive.DEFAULT_EXCLUDES);
        ex.addAll(excludes);
        SourceArchive a;
        try {
            a = SourceArchive.build(source, members, ex);
        } catch (ArchiveException e) {
            throw new CliException(e.getMessage(), e);
        }
        if (output != null) {
            try {
                a.writeTo(output);
            } catch (IOException e) {
                throw new CliException("Could not write the archive to " + output.toAbsolutePath() + ": " + e.getMessage(), e);
            }
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("root", a.root().toString());
        r.put("members", a.members());
        r.put("sha256", a.sha256());
        r.put("bytes", a.size());
        r.put("entries", a.entries());
        r.put("files", a.files());
        r.put("build_ms", Figures.round(Figures.millis(a.buildTime().toNanos()), 2));
        r.put("skipped", a.skipped());
        r.put("output", output == null ? null : output.toAbsolutePath().toString());
        PrintWriter out = spec.commandLine().getOut();
        if (json.enabled()) {
            out.println(Json.compact(r));
        } else {
            out.println("sha256   " + a.sha256());
            out.println("bytes    " + a.size());
            out.println("entries  " + a.entries());
            out.println("build    " + r.get("build_ms") + " ms");
            for (String s : a.skipped()) {
                out.println("skipped  " + s);
            }
            if (output != null) {
                out.println("written  " + output.toAbsolutePath());
            }
        }
        out.flush();
        return 0;
    }

    // ---- the object store: archives keyed by their own SHA-256, moved through the engine ----

    @Command(name = "push", mixinStandardHelpOptions = true,
            description = {"Build SRC's deterministic archive and push it to the workspace's object store (kiln.json \"store\")",
                "under archives/<sha256>, through the engine: a workspace DIR here (SRC inside it), or a daemon (URL or NAME, as",
                "kiln attach) that builds SRC of its own workspace (a path relative to it) and pushes with its own credentials.",
                "An archive already stored is left as it is. Prints the SHA-256 to pull it by. Exit 0 when it is stored, 1 otherwise."})
    static final class Push implements Callable<Integer> {
        @Mixin
        StoreCli.EngineArgument where;

        @Parameters(index = "1", paramLabel = "SRC", description = "Source root directory (with a daemon: relative to its workspace).")
        String source;

        @Option(names = {"-m", "--member"}, paramLabel = "M", description = "A top-level member of SRC (repeatable).")
        List<String> members = new ArrayList<>();

        @Mixin
        JsonOption json;

        @Override
        public Integer call() {
            String directory = where.local() ? inside(dev.kiln.app.common.Workspaces.require(Path.of(where.where))) : source;
            try (StoreCli.Opened opened = StoreCli.engine(where)) {
                dev.kiln.core.store.Transfer t = StoreCli.await(opened.engine().store().pushArchive(directory, members,
                        StoreCli.key("push-archive")));
                System.out.println(json.enabled() ? Json.compact(StoreCli.json(t).put("source", directory))
                        : StoreCli.line("archive " + t.manifest().sha256(), t));
                return 0;
            } catch (RuntimeException e) {
                if (e instanceof CliException c) {
                    throw c;
                }
                System.err.println("kiln: archive push " + source + ": " + e.getMessage());
                return 1;
            }
        }

        /** SRC as the engine takes it: relative to the workspace {@code ws}, which it must be inside. */
        private String inside(Path ws) {
            Path abs = Path.of(source).toAbsolutePath().normalize();
            if (!abs.startsWith(ws)) {
                throw new CliException(abs + " is outside the workspace " + ws + ": the engine archives only the workspace's"
                        + " own files (as a daemon does); put the source tree inside it, or build it without the store"
                        + " (kiln archive SRC -o OUT)");
            }
            String rel = ws.relativize(abs).toString();
            return rel.isEmpty() ? "." : rel;
        }
    }

    @Command(name = "pull", mixinStandardHelpOptions = true,
            description = {"Fetch the archive SHA256 from the workspace's object store, checked against its SHA-256, through the",
                "engine: into the workspace's observer/archives/<sha256>.tar.gz on the engine's host (a DIR here, or a daemon's",
                "URL or NAME: its host, with its credentials), atomically. With a DIR, -o OUT also writes it to OUT.",
                "A failed pull leaves what was there. Exit 0 when it is pulled, 1 otherwise."})
    static final class Pull implements Callable<Integer> {
        @Mixin
        StoreCli.EngineArgument where;

        @Parameters(index = "1", paramLabel = "SHA256", description = "The archive's SHA-256 (as push or kiln archive printed it).")
        String sha256;

        @Option(names = {"-o", "--output"}, paramLabel = "OUT", description = "With a DIR: also write it to OUT (atomically).")
        Path output;

        @Mixin
        JsonOption json;

        @Override
        public Integer call() {
            try {
                dev.kiln.core.store.StoreKey.archive(sha256);
            } catch (IllegalArgumentException e) {
                throw new CliException(e.getMessage(), e);
            }
            if (output != null && !where.local()) {
                throw new CliException("-o writes a file on this host, but the daemon " + where.where + " pulls onto its own"
                        + " host (into its workspace's observer/archives/); drop -o, or pull with a workspace DIR here");
            }
            try (StoreCli.Opened opened = StoreCli.engine(where)) {
                dev.kiln.core.engine.Engine engine = opened.engine();
                dev.kiln.core.store.Transfer t = StoreCli.await(engine.store().pullArchive(sha256, StoreCli.key("pull-archive")));
                Path landed = engine.layout().archivesDir().resolve(sha256 + ".tar.gz");
                if (output != null) {
                    copy(landed, output.toAbsolutePath());
                }
                System.out.println(json.enabled() ? Json.compact(StoreCli.json(t).put("path", landed.toString())
                        .put("output", output == null ? null : output.toAbsolutePath().toString()))
                        : StoreCli.line("archive", t) + (output == null ? "" : "; written to " + output.toAbsolutePath()));
                return 0;
            } catch (RuntimeException e) {
                if (e instanceof CliException c) {
                    throw c;
                }
                System.err.println("kiln: archive pull " + sha256 + ": " + e.getMessage());
                return 1;
            }
        }

        /** The pulled (checked) archive to OUT: the old OUT or the whole new one, never a part. */
        private static void copy(Path from, Path to) {
            try {
                dev.kiln.core.workspace.AtomicWrite.write(to, Files.readAllBytes(from));
            } catch (IOException e) {
                throw new CliException("cannot write the archive to " + to + ": " + e.getMessage(), e);
            }
        }
    }
}
