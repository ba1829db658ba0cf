package dev.kiln.core.startup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kiln.testkit.ProcessTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The audit against a venv built here with a known mix of fresh, stale and missing bytecode; then the precompile. */
@ProcessTest
class BytecodeTest {
    @TempDir
    Path dir;

    private Path venv;
    private Path site;
    private final Bytecode bytecode = Bytecode.withSystemEnvironment();

    @BeforeEach
    void venv() throws Exception {
        RealServers.require("python3", "install Python 3 (apt-get install python3 python3-venv)");
        venv = dir.resolve("venv");
        RealServers.run(List.of("python3", "-m", "venv", "--without-pip", venv.toString()), dir, 120);
        site = RealServers.sitePackages(venv);
    }

    private Path source(String rel, String text) throws Exception {
        Path p = site.resolve(rel);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
        return p;
    }

    private void pyCompile(Path source, String mode) throws Exception {
        RealServers.run(List.of(venv.resolve("bin/python").toString(), "-c",
                "import py_compile, sys; py_compile.compile(sys.argv[1], doraise=True,"
                        + " invalidation_mode=py_compile.PycInvalidationMode." + mode + ")", source.toString()), dir, 60);
    }

    private Path pycOf(Path source, PythonEnvironment env) {
        String n = source.getFileName().toString();
        return source.resolveSibling("__pycache__").resolve(n.substring(0, n.length() - 3) + "." + env.cacheTag() + ".pyc");
    }

    @Test
    void audit_mixedTree_countsFreshStaleAndMissingAsPythonWouldJudgeThem() throws Exception {
        PythonEnvironment env = bytecode.locate(venv);
        pyCompile(source("pkg/__init__.py", "X = 1\n"), "TIMESTAMP");
        pyCompile(source("pkg/a.py", "def a():\n    return 1\n"), "TIMESTAMP");
        Path b = source("pkg/b.py", "B = 2\n");
        pyCompile(b, "TIMESTAMP");
        Files.writeString(b, "B = 2  # edited after compiling: size and mtime moved\n");
        pyCompile(source("hashed.py", "H = 'x'\n"), "CHECKED_HASH");
        Path hashedStale = source("hashed_stale.py", "S = 'a'\n");
        pyCompile(hashedStale, "CHECKED_HASH");
        Files.writeString(hashedStale, "S = 'b'\n");
        Path unchecked = source("unchecked.py", "U = 1\n");
        pyCompile(unchecked, "UNCHECKED_HASH");
        Files.writeString(unchecked, "U = 2\n");
        Path foreign = source("foreign.py", "F = 1\n");
        pyCompile(foreign, "TIMESTAMP");
        byte[] pyc = Files.readAllBytes(pycOf(foreign, env));
        pyc[0] ^= 0x55; // as if written by another Python version
        Files.write(pycOf(foreign, env), pyc);
        source("pkg/c.py", "C = 3\n");
        source("pkg/sub/d.py", "D = 4\n");
        source("top.py", "import pkg\n");

        BytecodeReport r = bytecode.audit(env);

        assertThat(r.sources()).isEqualTo(10);
        assertThat(r.fresh()).as("__init__, a, hashed, unchecked").isEqualTo(4);
        assertThat(r.uncheckedHash()).isEqualTo(1);
        assertThat(r.stale()).as("b, hashed_stale, foreign").isEqualTo(3);
        assertThat(r.missing()).as("c, d, top").isEqualTo(3);
        assertThat(r.examples()).contains("stale: " + b.toRealPath(), "missing: " + site.resolve("top.py").toRealPath());
        assertThat(env.roots()).containsExactly(site.toRealPath());
        assertThat(env.cacheTag()).startsWith("cpython-3");
    }

    @Test
    void compile_missingAndStale_becomeFreshAndReauditShowsIt() throws Exception {
        for (int i = 0; i < 20; i++) {
            source("pkg" + (i % 3) + "/m" + i + ".py", "def f(x):\n    return x * " + i + "\n");
        }
        Path edited = source("edited.py", "E = 1\n");
        PythonEnvironment env = bytecode.locate(venv.resolve("bin/python"));
        pyCompile(edited, "TIMESTAMP");
        Files.writeString(edited, "E = 12345\n");

        Bytecode.CompileResult c = bytecode.compile(env, Bytecode.InvalidationMode.CHECKED_HASH);

        assertThat(c.before().missing()).isEqualTo(20);
        assertThat(c.before().stale()).isEqualTo(1);
        assertThat(c.exitCode()).isZero();
        assertThat(c.after().missing()).isZero();
        assertThat(c.after().stale()).isZero();
        assertThat(c.after().fresh()).isEqualTo(21);
        assertThat(c.after().uncheckedHash()).isZero();
        byte[] header = Files.readAllBytes(pycOf(edited, env));
        assertThat(header[4] & 0b11).as("checked-hash flags").isEqualTo(0b11);
    }

    @Test
    void compile_fileThatDoesNotCompile_reportedNotFatal() throws Exception {
        source("good.py", "G = 1\n");
        source("py2_only.py", "print 'hello'\n");
        PythonEnvironment env = bytecode.locate(venv);

        Bytecode.CompileResult c = bytecode.compile(env, Bytecode.InvalidationMode.TIMESTAMP);

        assertThat(c.exitCode()).isNotZero();
        assertThat(String.join("\n", c.output())).contains("py2_only.py");
        assertThat(c.after().fresh()).isEqualTo(1);
        assertThat(c.after().missing()).isEqualTo(1);
    }

    @Test
    void locate_serverForms_resolveTheInterpreterTheServerRuns() throws Exception {
        Path python = venv.resolve("bin/python");
        Path script = dir.resolve("server.py");
        Files.writeString(script, "#!" + python + "\nprint('hi')\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path project = dir.resolve("proj");
        RealServers.run(List.of("python3", "-m", "venv", "--without-pip", project.resolve(".venv").toString()), dir, 120);

        assertThat(bytecode.locate(ServerConfig.stdio("direct", dir, python.toString(), List.of("-m", "srv"), Map.of()))
                .roots()).containsExactly(site.toRealPath());
        assertThat(bytecode.locate(ServerConfig.stdio("shebang", dir, "./server.py", List.of(), Map.of())).resolvedFrom())
                .isEqualTo("the shebang of " + script);
        assertThat(bytecode.locate(ServerConfig.stdio("uvrun", dir, "uv", List.of("run", "--directory", "proj", "srv"),
                Map.of())).roots()).containsExactly(RealServers.sitePackages(project.resolve(".venv")).toRealPath());
    }

    @Test
    void locate_serversWithNoAuditableEnvironment_sayWhyAndWhatToDo() {
        assertThatThrownBy(() -> bytecode.locate(ServerConfig.stdio("u", dir, "uvx", List.of("mcp-server-git"), Map.of())))
                .isInstanceOf(BytecodeException.class).hasMessageContaining("throw-away environment")
                .hasMessageContaining("Install the server into a venv");
        assertThatThrownBy(() -> bytecode.locate(ServerConfig.stdio("n", dir, "node", List.of("index.js"), Map.of())))
                .hasMessage("server 'n' runs node, which is not a Python interpreter or script: there is no Python bytecode"
                        + " to audit");
        assertThatThrownBy(() -> bytecode.locate(ServerConfig.stdio("r", dir, "uv", List.of("run", "srv"), Map.of())))
                .hasMessageContaining("has no .venv yet").hasMessageContaining("uv sync");
        assertThatThrownBy(() -> bytecode.locate(dir.resolve("nope")))
                .hasMessageContaining("does not exist");
    }
}
