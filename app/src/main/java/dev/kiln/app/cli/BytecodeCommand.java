package dev.kiln.app.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kiln.app.common.CliException;
import dev.kiln.app.common.Json;
import dev.kiln.app.common.JsonOption;
import dev.kiln.core.telemetry.Figures;
import dev.kiln.core.startup.Bytecode;
import dev.kiln.core.startup.BytecodeReport;
import dev.kiln.core.startup.PythonEnvironment;
import dev.kiln.core.startup.ServerConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code kiln bytecode audit|compile SERVER|PATH}: how much of a Python server's environment has fresh bytecode. */
@Command(name = "bytecode", mixinStandardHelpOptions = true,
        description = "Audit or precompile the Python bytecode of a server's environment.",
        subcommands = {BytecodeCommand.Audit.class, BytecodeCommand.Compile.class, CommandLine.HelpCommand.class})
final class BytecodeCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "name an action: audit or compile");
    }

    /** Shared: a server name from the config, or a path to a venv, interpreter or script. */
    abstract static class Target {
        @Parameters(index = "0", paramLabel = "SERVER|PATH",
                description = "A server of the config, or a venv directory, a Python interpreter or a script.")
        String target;

        @Option(names = "--config", paramLabel = "CONFIG",
                description = "Where SERVER is configured (default: ./servers.json when it exists).")
        Path config;

        /** The named server when it is launched as {@code node …} (its compile cache, not Python bytecode), else null. */
        ServerConfig nodeServer() {
            Path file = config != null ? ServerArgs.configFile(config) : Path.of("servers.json").toAbsolutePath();
            if (config == null && !Files.isRegularFile(file)) {
                return null;
            }
            for (ServerConfig s : ServerArgs.read(file)) {
                if (s.name().equals(target) && dev.kiln.core.startup.Launcher.of(s) == dev.kiln.core.startup.Launcher.NODE) {
                    return s;
                }
            }
            return null;
        }

        static int printNode(dev.kiln.core.startup.NodeCompileCache.Report r, boolean json) {
            if (json) {
                System.out.println(Json.compact(Json.object().put("server", r.server()).put("runtime", "node")
                        .put("node_version", r.nodeVersion()).put("compile_cache_supported", r.supported())
                        .put("compile_cache_dir", r.dir() == null ? null : r.dir().toString()).put("files", r.files())
                        .put("bytes", r.bytes()).put("note", r.note())));
            } else {
                System.out.println(r.server() + " (node " + r.nodeVersion() + "): " + r.note());
            }
            return 0;
        }

        PythonEnvironment locate(Bytecode bytecode) {
            Path asPath = Path.of(target);
            boolean configGiven = config != null;
            Path file = configGiven ? ServerArgs.configFile(config) : Path.of("servers.json").toAbsolutePath();
            if (configGiven || Files.isRegularFile(file)) {
                List<ServerConfig> all = ServerArgs.read(file);
                for (ServerConfig s : all) {
                    if (s.name().equals(target)) {
                        return bytecode.locate(s);
                    }
                }
                if (!Files.exists(asPath)) {
                    throw new CliException(file + " has no server '" + target + "' and no such path exists; servers: "
                            + String.join(", ", all.stream().map(ServerConfig::name).toList()));
                }
            }
            return bytecode.locate(asPath);
        }
    }

    @Command(name = "audit", mixinStandardHelpOptions = true,
            description = "Count .py files against up-to-date .pyc for the server's interpreter: fresh, stale, missing.")
    static final class Audit extends Target implements Callable<Integer> {
        @Mixin
        JsonOption json;

        @Override
        public Integer call() throws Exception {
            ServerConfig node = nodeServer();
            if (node != null) {
                return printNode(dev.kiln.core.startup.NodeCompileCache.audit(node), json.enabled());
            }
            Bytecode bytecode = Bytecode.withSystemEnvironment();
            BytecodeReport r = bytecode.audit(locate(bytecode));
            if (json.enabled()) {
                System.out.println(Json.compact(json(r)));
            } else {
                print(r);
            }
            return 0;
        }
    }

    @Command(name = "compile", mixinStandardHelpOptions = true,
            description = "Precompile the environment's site-packages (python -m compileall -q -j 0), then audit again.")
    static final class Compile extends Target implements Callable<Integer> {
        @Option(names = "--invalidation-mode", paramLabel = "MODE",
                description = "timestamp, checked-hash (reproducible images) or unchecked-hash (default: ${DEFAULT-VALUE}).")
        String mode = "timestamp";

        @Mixin
        JsonOption json;

        @Override
        public Integer call() throws Exception {
            ServerConfig node = nodeServer();
            if (node != null) {
                String d = node.env().get("NODE_COMPILE_CACHE");
                Path dir = d != null ? Path.of(d) : Path.of(System.getProperty("user.home"), ".cache", "kiln",
                        "node-compile-cache", node.name());
                return printNode(dev.kiln.core.startup.NodeCompileCache.warm(node, dir), json.enabled());
            }
            Bytecode bytecode = Bytecode.withSystemEnvironment();
            Bytecode.InvalidationMode m = Bytecode.InvalidationMode.parse(mode);
            PythonEnvironment env = locate(bytecode);
            if (!json.enabled()) {
                System.err.println("compiling " + env.roots() + " with " + env.interpreter() + " (" + m.label() + ")…");
            }
            Bytecode.CompileResult c = bytecode.compile(env, m);
            if (json.enabled()) {
                ObjectNode n = Json.object();
                n.set("before", json(c.before()));
                n.set("after", json(c.after()));
                n.put("invalidation_mode", c.mode().label());
                n.put("exit_code", c.exitCode());
                n.put("elapsed_ms", Math.round(c.elapsedMs()));
                c.output().forEach(n.putArray("output")::add);
                System.out.println(Json.compact(n));
                return 0;
            }
            System.out.println("before:");
            print(c.before());
            System.out.println("after (" + Math.round(c.elapsedMs()) + " ms):");
            print(c.after());
            if (c.exitCode() != 0) {
                System.out.println("compileall could not compile some files (exit " + c.exitCode() + "); they stay missing:");
                c.output().forEach(l -> System.out.println("  " + l));
            }
            return 0;
        }
    }

    static ObjectNode json(BytecodeReport r) {
        ObjectNode n = Json.object();
        PythonEnvironment e = r.environment();
        n.put("interpreter", e.interpreter().toString());
        n.put("version", e.version());
        n.put("cache_tag", e.cacheTag());
        n.put("resolved_from", e.resolvedFrom());
        e.roots().forEach(p -> n.withArray("roots").add(p.toString()));
        n.put("sources", r.sources());
        n.put("fresh", r.fresh());
        n.put("stale", r.stale());
        n.put("missing", r.missing());
        n.put("unchecked_hash", r.uncheckedHash());
        n.put("fresh_ratio", Figures.round(r.freshRatio(), 3));
        r.examples().forEach(n.putArray("examples")::add);
        return n;
    }

    static void print(BytecodeReport r) {
        PythonEnvironment e = r.environment();
        System.out.println("  interpreter: " + e.interpreter() + " (Python " + e.version() + ", " + e.cacheTag() + "), from "
                + e.resolvedFrom());
        e.roots().forEach(p -> System.out.println("  root:        " + p));
        System.out.printf(Locale.ROOT, "  sources: %d   fresh: %d (%.0f%%)   stale: %d   missing: %d%n", r.sources(), r.fresh(),
                r.freshRatio() * 100, r.stale(), r.missing());
        if (r.stale() + r.missing() > 0) {
            r.examples().stream().limit(5).forEach(x -> System.out.println("    " + x));
            System.out.println("  precompile with: kiln bytecode compile " + e.interpreter());
        }
    }
}
