package dev.kiln.core.seed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kiln.core.workspace.WorkspaceException;
import dev.kiln.testkit.ProcessTest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading targets from a directory or a git ref, and the lockfile hash. */
@ProcessTest
class TargetTest {
    @TempDir
    Path tmp;

    Path targets() {
        return tmp.resolve("ws/targets");
    }

    Path writeTarget(String name, String json) throws Exception {
        Path dir = Files.createDirectories(targets().resolve(name));
        Files.writeString(dir.resolve("target.json"), json);
        return dir;
    }

    @Test
    void read_dirSource_resolvesAgainstTheTargetDirectoryWithDefaults() throws Exception {
        writeTarget("app", "{\"source\": {\"dir\": \"../../src\"}}");

        Target t = Target.read(targets(), "app");

        assertThat(t.source()).isEqualTo(new Target.DirSource(tmp.resolve("ws/src")));
        assertThat(t.timeout()).isEqualTo(Duration.ofMinutes(30));
        assertThat(t.syncArguments()).isEmpty();
    }

    @Test
    void read_extrasAndPython_becomeSyncArguments() throws Exception {
        writeTarget("app", "{\"source\": {\"dir\": \".\"}, \"extras\": [\"cli\", \"s3\"], \"python\": \"3.11\", \"timeout\": \"90s\"}");

        Target t = Target.read(targets(), "app");

        assertThat(t.syncArguments()).containsExactly("--extra", "cli", "--extra", "s3", "--python", "3.11");
        assertThat(t.timeout()).isEqualTo(Duration.ofSeconds(90));
    }

    @Test
    void read_missingTarget_namesTheFile() {
        assertThatThrownBy(() -> Target.read(targets(), "ghost"))
                .isInstanceOf(WorkspaceException.class)
                .hasMessageStartingWith("No target 'ghost': " + targets().resolve("ghost/target.json") + " does not exist");
    }

    @Test
    void read_malformedFields_sayWhichField() throws Exception {
        writeTarget("a", "{\"source\": {\"dir\": \".\"}, \"extras\": 3}");
        writeTarget("b", "{\"source\": {}}");
        writeTarget("c", "{\"source\": {\"dir\": \".\"}, \"timeout\": \"soon\"}");
        writeTarget("d", "{\"source\": {\"git\": \"https://github.com/x/y\"}}");
        writeTarget("e", "[1,");

        assertThatThrownBy(() -> Target.read(targets(), "a")).hasMessageContaining("'extras' must be \"all\" or a list");
        assertThatThrownBy(() -> Target.read(targets(), "b")).hasMessageContaining("'source' needs 'dir' or 'git'");
        assertThatThrownBy(() -> Target.read(targets(), "c")).hasMessageContaining("field 'timeout': 'soon' is not a duration");
        assertThatThrownBy(() -> Target.read(targets(), "d")).hasMessageContaining("is a remote URL");
        assertThatThrownBy(() -> Target.read(targets(), "e")).hasMessageContaining("cannot read the target");
        assertThatThrownBy(() -> Target.read(targets(), "../x")).hasMessageContaining("is not a target name");
    }

    @Test
    void lockFiles_missingLock_saysWhatToRun() throws Exception {
        Path dir = writeTarget("app", "{\"source\": {\"dir\": \".\"}}");
        Files.writeString(dir.resolve("pyproject.toml"), "[project]\nname = \"x\"\n");

        assertThatThrownBy(() -> LockFiles.read(Target.read(targets(), "app")))
                .hasMessageContaining(dir.resolve("uv.lock") + " does not exist")
                .hasMessageContaining("uv lock");
    }

    @Test
    void hash_isOrderIndependentAndMovesWithEveryByte() {
        byte[] p = "a".getBytes(StandardCharsets.UTF_8);
        byte[] l = "b".getBytes(StandardCharsets.UTF_8);

        String h = LockFiles.hash(Map.of("pyproject.toml", p, "uv.lock", l));

        assertThat(LockFiles.hash(new java.util.LinkedHashMap<>(Map.of("uv.lock", l, "pyproject.toml", p)))).isEqualTo(h);
        assertThat(LockFiles.hash(Map.of("pyproject.toml", p, "uv.lock", "c".getBytes(StandardCharsets.UTF_8)))).isNotEqualTo(h);
        // Moving a byte across the file boundary changes the hash: the encoding is length-prefixed.
        assertThat(LockFiles.hash(Map.of("pyproject.toml", "ab".getBytes(StandardCharsets.UTF_8), "uv.lock", new byte[0])))
                .isNotEqualTo(LockFiles.hash(Map.of("pyproject.toml", p, "uv.lock", l)));
        assertThat(h).hasSize(64).matches("[0-9a-f]+");
    }

    @Test
    void lockFiles_gitSource_readsTheRefNotTheWorkingTree() throws Exception {
        Path repo = Files.createDirectories(tmp.resolve("repo"));
        git(repo, "init", "-q", "-b", "main");
        Files.createDirectories(repo.resolve("py/app"));
        Files.writeString(repo.resolve("py/app/pyproject.toml"), "[project]\nname = \"committed\"\n");
        Files.writeString(repo.resolve("py/app/uv.lock"), "version = 1\n");
        git(repo, "add", "-A");
        git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "lock");
        Files.writeString(repo.resolve("py/app/pyproject.toml"), "[project]\nname = \"uncommitted edit\"\n");
        writeTarget("app", "{\"source\": {\"git\": \"../../../repo\", \"ref\": \"main\", \"path\": \"py/app\"}}");

        LockFiles files = LockFiles.read(Target.read(targets(), "app"));

        assertThat(new String(files.files().get("pyproject.toml"), StandardCharsets.UTF_8)).contains("committed").doesNotContain("uncommitted");
        assertThat(files.hash()).isEqualTo(LockFiles.hash(Map.of(
                "pyproject.toml", "[project]\nname = \"committed\"\n".getBytes(StandardCharsets.UTF_8),
                "uv.lock", "version = 1\n".getBytes(StandardCharsets.UTF_8))));
    }

    @Test
    void lockFiles_gitBadRefOrMissingFile_saySo() throws Exception {
        Path repo = Files.createDirectories(tmp.resolve("repo"));
        git(repo, "init", "-q", "-b", "main");
        Files.writeString(repo.resolve("pyproject.toml"), "[project]\n");
        git(repo, "add", "-A");
        git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "no lock");
        writeTarget("badref", "{\"source\": {\"git\": \"../../../repo\", \"ref\": \"release-9\"}}");
        writeTarget("nolock", "{\"source\": {\"git\": \"../../../repo\", \"ref\": \"main\"}}");
        writeTarget("norepo", "{\"source\": {\"git\": \"../../../nowhere\", \"ref\": \"main\"}}");

        assertThatThrownBy(() -> LockFiles.read(Target.read(targets(), "badref")))
                .hasMessageContaining("ref 'release-9' does not exist in " + repo);
        assertThatThrownBy(() -> LockFiles.read(Target.read(targets(), "nolock")))
                .hasMessageContaining("ref 'main' of " + repo + " has no file uv.lock");
        assertThatThrownBy(() -> LockFiles.read(Target.read(targets(), "norepo")))
                .hasMessageContaining("git repository " + tmp.resolve("nowhere") + " does not exist");
    }

    /** A ref git would take for an option (--output=FILE makes git show write files): refused when read. */
    @Test
    void read_gitRefThatLooksLikeAnOption_isRefusedWithWhatToWrite() throws Exception {
        Path out = tmp.resolve("pwned");
        writeTarget("evil", "{\"source\": {\"git\": \"../../../repo\", \"ref\": \"--output=" + out + "\"}}");
        writeTarget("colon", "{\"source\": {\"git\": \"../../../repo\", \"ref\": \"main:other\"}}");

        assertThatThrownBy(() -> Target.read(targets(), "evil"))
                .hasMessageContaining("source.ref '--output=" + out + "'").hasMessageContaining("a branch, tag or commit");
        assertThatThrownBy(() -> Target.read(targets(), "colon")).hasMessageContaining("source.ref 'main:other'");
        for (String ok : List.of("main", "release/v1.2-rc_1", "HEAD~1", "v2^{commit}", "0123abcd")) {
            writeTarget("ok", "{\"source\": {\"git\": \"../../../repo\", \"ref\": \"" + ok + "\"}}");
            assertThat(((Target.GitSource) Target.read(targets(), "ok").source()).ref()).isEqualTo(ok);
        }
    }

    /** Even a ref that reached git unchecked is an object name to it, never an option: nothing is written. */
    @Test
    void lockFiles_gitRefStartingWithADash_isNeverTakenAsAnOption() throws Exception {
        Path repo = Files.createDirectories(tmp.resolve("repo"));
        git(repo, "init", "-q", "-b", "main");
        Files.writeString(repo.resolve("pyproject.toml"), "[project]\n");
        Files.writeString(repo.resolve("uv.lock"), "version = 1\n");
        git(repo, "add", "-A");
        git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "lock");
        Path out = tmp.resolve("pwned");
        Target t = new Target("evil", targets().resolve("evil/target.json"),
                new Target.GitSource(repo, "--output=" + out, ""), java.util.Optional.empty(), false, List.of(),
                Duration.ofMinutes(1));

        assertThatThrownBy(() -> LockFiles.read(t)).hasMessageContaining("--output=" + out);
        try (var s = Files.list(tmp)) {
            assertThat(s.map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith("pwned"));
        }
    }

    private static void git(Path dir, String... args) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of("git", "-C", dir.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
    }
}
