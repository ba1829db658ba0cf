package dev.kiln.core.startup;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/** Finds the Python interpreter a server runs, then asks that interpreter where its environment is. */
final class InterpreterLocator {
    private static final Pattern PYTHON = Pattern.compile("python(\\d+(\\.\\d+)?)?");
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Printed by the interpreter itself: nothing about an environment is guessed from paths. */
    private static final String INTROSPECT = String.join("\n",
            "import sys, sysconfig, json, importlib.util",
            "p = sysconfig.get_paths()",
            "print(json.dumps({'executable': sys.executable, 'version': '%d.%d.%d' % sys.version_info[:3],",
            "  'tag': sys.implementation.cache_tag, 'magic': importlib.util.MAGIC_NUMBER.hex(),",
            "  'purelib': p['purelib'], 'platlib': p['platlib']}))");

    private final Map<String, String> environment;

    InterpreterLocator(Map<String, String> environment) {
        this.environment = environment;
    }

    PythonEnvironment locate(ServerConfig server) {
        if (server.transport() != ServerConfig.Transport.STDIO) {
            throw new BytecodeException("server '" + server.name() + "' is reached over HTTP at " + server.url()
                    + ": Kiln does not run it, so it cannot audit its environment; audit its venv by path instead");
        }
        String command = server.program();
        String base = Path.of(command).getFileName().toString();
        Path cwd = server.cwd() == null ? Path.of("").toAbsolutePath() : server.cwd();
        Map<String, String> env = new java.util.HashMap<>(environment);
        env.putAll(server.env());
        if (PYTHON.matcher(base).matches()) {
            Path exe = find(command, cwd, env);
            if (exe == null) {
                throw new BytecodeException("server '" + server.name() + "' runs " + command + ", which is not on PATH");
            }
            return introspect(exe, "the server's command (" + command + ")");
        }
        if (base.equals("uvx")) {
            throw new BytecodeException("server '" + server.name() + "' runs through uvx, which builds a throw-away"
                    + " environment when it starts: there is nothing on disk to audit or precompile. Install the server"
                    + " into a venv (uv venv; uv pip install …) and point the config at its bin/ script or python");
        }
        if (base.equals("uv") && server.args().contains("run")) {
            Path project = cwd;
            List<String> a = server.args();
            for (int i = 0; i < a.size() - 1; i++) {
                if (a.get(i).equals("--directory") || a.get(i).equals("--project")) {
                    project = cwd.resolve(a.get(i + 1)).normalize();
                }
            }
            Path venvPython = project.resolve(".venv/bin/python");
            if (!Files.isExecutable(venvPython)) {
                throw new BytecodeException("server '" + server.name() + "' runs `uv run` in " + project + ", which has no"
                        + " .venv yet (uv creates it on first run): run `uv sync` there, then audit again");
            }
            return introspect(venvPython, "uv run's project venv (" + project.resolve(".venv") + ")");
        }
        Path exe = find(command, cwd, env);
        if (exe == null) {
            throw new BytecodeException("server '" + server.name() + "' runs " + command + ", which is not on PATH");
        }
        Path shebang = shebangInterpreter(exe, env);
        if (shebang == null) {
            throw new BytecodeException("server '" + server.name() + "' runs " + command + ", which is not a Python"
                    + " interpreter or script: there is no Python bytecode to audit");
        }
        return introspect(shebang, "the shebang of " + exe);
    }

    PythonEnvironment locate(Path path) {
        Path p = path.toAbsolutePath().normalize();
        if (!Files.exists(p)) {
            throw new BytecodeException(p + " does not exist; name a server from the config, a venv, or a Python interpreter");
        }
        if (Files.isDirectory(p)) {
            for (String candidate : List.of("bin/python", "bin/python3", "Scripts/python.exe")) {
                if (Files.isExecutable(p.resolve(candidate))) {
                    return introspect(p.resolve(candidate), "the venv " + p);
                }
            }
            throw new BytecodeException(p + " is a directory without bin/python: name a venv (with pyvenv.cfg) or an"
                    + " interpreter");
        }
        if (PYTHON.matcher(p.getFileName().toString()).matches()) {
            return introspect(p, "the interpreter " + p);
        }
        Path shebang = shebangInterpreter(p, environment);
        if (shebang == null) {
            throw new BytecodeException(p + " is neither a Python interpreter nor a script with a python shebang");
        }
        return introspect(shebang, "the shebang of " + p);
    }

    private @Nullable Path find(String command, Path cwd, Map<String, String> env) {
        if (command.contains("/")) {
            Path p = cwd.resolve(command).normalize();
            return Files.isRegularFile(p) ? p : null;
        }
        return onPath(command, env);
    }

    /** The first executable {@code command} (a bare name) on {@code env}'s PATH, or null. */
    private static @Nullable Path onPath(String command, Map<String, String> env) {
        for (String dir : env.getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, command)) && !Files.isDirectory(Path.of(dir, command))) {
                return Path.of(dir, command);
            }
        }
        return null;
    }

    /** The interpreter named by a script's {@code #!} line when it is a Python one, else null. */
    private @Nullable Path shebangInterpreter(Path script, Map<String, String> env) {
        String first;
        try (InputStream in = Files.newInputStream(script)) {
            byte[] head = in.readNBytes(512);
            String text = new String(head, StandardCharsets.UTF_8);
            if (!text.startsWith("#!")) {
                return null;
            }
            int nl = text.indexOf('\n');
            first = (nl < 0 ? text : text.substring(0, nl)).substring(2).trim();
        } catch (IOException e) {
            throw new BytecodeException("cannot read " + script + ": " + e.getMessage(), e);
        }
        String[] parts = first.split("\\s+");
        if (parts.length == 0) {
            return null;
        }
        String exe = parts[0];
        if (exe.endsWith("/env")) {
            int i = 1;
            while (i < parts.length && parts[i].startsWith("-")) {
                i++; // env -S and friends
            }
            if (i >= parts.length) {
                return null;
            }
            exe = parts[i];
        }
        String base = Path.of(exe).getFileName().toString();
        if (!PYTHON.matcher(base).matches()) {
            return null;
        }
        return exe.contains("/") ? Path.of(exe) : onPath(exe, env);
    }

    PythonEnvironment introspect(Path interpreter, String resolvedFrom) {
        String out;
        try {
            out = run(List.of(interpreter.toString(), "-I", "-c", INTROSPECT), 60);
        } catch (IOException e) {
            throw new BytecodeException("cannot run " + interpreter + " to ask where its environment is: " + e.getMessage(), e);
        }
        JsonNode n;
        try {
            n = JSON.readTree(out);
        } catch (IOException e) {
            throw new BytecodeException(interpreter + " answered something Kiln cannot read: " + Handshake.clip(out.strip()), e);
        }
        Set<Path> roots = new LinkedHashSet<>();
        for (String key : List.of("purelib", "platlib")) {
            Path r = Path.of(n.path(key).asText());
            if (Files.isDirectory(r)) {
                try {
                    roots.add(r.toRealPath()); // lib64 -> lib symlinks must not count a tree twice
                } catch (IOException e) {
                    roots.add(r.normalize());
                }
            }
        }
        return new PythonEnvironment(Path.of(n.path("executable").asText(interpreter.toString())), n.path("version").asText(),
                n.path("tag").asText(), n.path("magic").asText(), new ArrayList<>(roots), resolvedFrom);
    }

    /** Runs a short Python helper and returns its stdout; a non-zero exit is an error naming its stderr. */
    String run(List<String> command, long timeoutSeconds) throws IOException {
        return run(command, null, timeoutSeconds);
    }

    String run(List<String> command, @Nullable String stdin, long timeoutSeconds) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().clear();
        pb.environment().putAll(environment);
        // The audit is about the environment's own __pycache__: a caller's prefix must not redirect reads or writes.
        pb.environment().remove("PYTHONPYCACHEPREFIX");
        pb.environment().remove("PYTHONDONTWRITEBYTECODE");
        Path err = Files.createTempFile("kiln-python-", ".err");
        Path outFile = Files.createTempFile("kiln-python-", ".out");
        try {
            pb.redirectError(err.toFile()).redirectOutput(outFile.toFile());
            Process p = pb.start();
            try (var in = p.getOutputStream()) {
                if (stdin != null) {
                    in.write(stdin.getBytes(StandardCharsets.UTF_8));
                }
            }
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                ProcessTree.end(p.toHandle(), 500);
                throw new IOException(String.join(" ", command.subList(0, Math.min(3, command.size())))
                        + " did not finish within " + timeoutSeconds + " s");
            }
            String out = Files.readString(outFile, StandardCharsets.UTF_8);
            if (p.exitValue() != 0) {
                throw new IOException("exit code " + p.exitValue() + ": " + Handshake.clip(Files.readString(err).strip()));
            }
            return out;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } finally {
            Files.deleteIfExists(err);
            Files.deleteIfExists(outFile);
        }
    }
}
