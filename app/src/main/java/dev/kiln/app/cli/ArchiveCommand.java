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
            "kiln archive push WS SRC … stores it in the workspace's object store, keyed by its SHA-256;",
            "kiln archive pull WS SHA256 -o OUT fetches one back, checked against that SHA-256."},
        subcommands = {ArchiveCommand.Push.class, ArchiveCommand.Pull.class})
final class ArchiveCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "SRC", description = "Source root directory.")
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

    // ---- the object store: archives keyed by their own SHA-256 ----

    @Command(name = "push", mixinStandardHelpOptions = true,
            description = {"Build SRC's deterministic archive and push it to WS's object store (kiln.json \"store\") under",
                "archives/<sha256>. An archive already stored is left as it is. Prints the SHA-256 to pull it by."})
    static final class Push implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "WS", description = "The workspace whose kiln.json names the store.")
        Path workspace;

        @Parameters(index = "1", paramLabel = "SRC", description = "Source root directory.")
        Path source;

        @Option(names = {"-m", "--member"}, paramLabel = "M", description = "A top-level member of SRC (repeatable).")
        List<String> members = new ArrayList<>();

        @Mixin
        JsonOption json;

        @Override
        public Integer call() throws IOException {
            SourceArchive a;
            try {
                a = SourceArchive.build(source, members, SourceArchive.DEFAULT_EXCLUDES);
            } catch (ArchiveException e) {
                throw new CliException(e.getMessage(), e);
            }
            Path tmp = Files.createTempFile("kiln-archive-", ".tar.gz");
            try (dev.kiln.core.store.ObjectStore store = StoreCli.open(dev.kiln.app.common.Workspaces.require(workspace))) {
                a.writeTo(tmp);
                dev.kiln.core.store.Transfer t = store.pushFile(dev.kiln.core.store.StoreKey.archive(a.sha256()), tmp);
                System.out.println(json.enabled() ? Json.compact(StoreCli.json(t)) : StoreCli.line("archive " + a.sha256(), t));
                return 0;
            } catch (dev.kiln.core.store.StoreException e) {
                throw new CliException(e.getMessage(), e);
            } finally {
                Files.deleteIfExists(tmp);
            }
        }
    }

    @Command(name = "pull", mixinStandardHelpOptions = true,
            description = "Fetch the archive SHA256 from WS's object store into OUT (atomically), checked against its SHA-256.")
    static final class Pull implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "WS", description = "The workspace whose kiln.json names the store.")
        Path workspace;

        @Parameters(index = "1", paramLabel = "SHA256", description = "The archive's SHA-256 (as push or kiln archive printed it).")
        String sha256;

        @Option(names = {"-o", "--output"}, paramLabel = "OUT", required = true, description = "Where to write it.")
        Path output;

        @Mixin
        JsonOption json;

        @Override
        public Integer call() {
            dev.kiln.core.store.StoreKey key;
            try {
                key = dev.kiln.core.store.StoreKey.archive(sha256);
            } catch (IllegalArgumentException e) {
                throw new CliException(e.getMessage(), e);
            }
            try (dev.kiln.core.store.ObjectStore store = StoreCli.open(dev.kiln.app.common.Workspaces.require(workspace))) {
                dev.kiln.core.store.Transfer t = store.pullFile(key, output.toAbsolutePath());
                System.out.println(json.enabled() ? Json.compact(StoreCli.json(t)) : StoreCli.line("archive", t));
                return 0;
            } catch (dev.kiln.core.store.StoreException e) {
                throw new CliException(e.getMessage(), e);
            }
        }
    }
}
