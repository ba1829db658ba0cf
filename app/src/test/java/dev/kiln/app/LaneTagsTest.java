package dev.kiln.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.ArchConfiguration;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import dev.kiln.testkit.DaemonTest;
import dev.kiln.testkit.FxTest;
import dev.kiln.testkit.AloneTest;
import dev.kiln.testkit.KernelTest;
import dev.kiln.testkit.ProcessTest;
import java.io.IOException;
import java.lang.annotation.Annotation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The fast lane ({@code mvn -Pquick verify}) stays quick only if every test that spawns a process, starts a daemon or
 * starts JavaFX says so with its testkit tag. This reads the compiled classes of every module (main and test) and
 * checks two things:
 * <ul>
 *   <li>a test class of the quick lane (none of the four tags, on itself or a superclass) reaches no
 *       {@code ProcessBuilder.start}/{@code Runtime.exec} and starts no daemon, through any chain of statically
 *       resolvable calls or method references in test or main code ({@code Trees.run}, {@code UvLauncher.run},
 *       {@code ProjectionDaemon.Builder.start}, …), and uses no TestFX, {@code javafx.stage} or
 *       {@code javafx.application};</li>
 *   <li>a test class that does one of these in test code (itself or a test helper such as {@code Trees.run},
 *       {@code SlowWheelServer}) carries that family's own tag.</li>
 * </ul>
 * Not followed: calls through an interface ({@code Engine}) or picocli's reflection ({@code CliRun}). {@code @KernelTest}
 * (FIFOs, {@code /proc}, cgroups, inotify limits) has no byte-code signature: it stays with the reviewer.
 */
class LaneTagsTest {
    private static final List<String> MODULES = List.of("testkit", "core", "ui", "app");
    private static final List<Class<? extends Annotation>> SLOW = List.of(ProcessTest.class, DaemonTest.class, FxTest.class,
            KernelTest.class, AloneTest.class);
    private static final String OPEN_WATCHDOG = "ContractStore.readBounded reaches OpenWatchdog's signal (sh kill), "
            + "sent only to an open still blocked after 500 ms: a FIFO swapped in, which these tests never make";
    /** Quick-lane classes whose only path to a slow part is one the test never takes, each with why. */
    private static final Map<String, String> NEVER_TAKEN = Map.of(
            "dev.kiln.app.cli.ConsoleStartTest", "Console.start refuses a directory that is not a workspace (exit 2) before "
                    + "KilnConsole.launch asks gsettings for the theme",
            "dev.kiln.core.contract.ContractCodecTest", OPEN_WATCHDOG,
            "dev.kiln.core.contract.LeafIdHealTest", OPEN_WATCHDOG);
    private static JavaClasses kiln;
    private static Set<String> testCode;
    private static Map<JavaCodeUnit, Step> spawning;
    private static Map<JavaCodeUnit, Step> serving;
    private static @Nullable Map<JavaCodeUnit, List<JavaCodeUnit>> callers;

    @BeforeAll
    static void importEveryModule() throws IOException {
        Path root = Path.of(System.getProperty("kiln.project.root", "..")).toAbsolutePath().normalize();
        List<Path> dirs = new ArrayList<>();
        testCode = new HashSet<>();
        for (String module : MODULES) {
            for (String out : List.of("classes", "test-classes")) {
                Path dir = root.resolve(module).resolve("target").resolve(out);
                if (!module.equals("testkit") || out.equals("classes")) {
                    assertThat(dir).as("compiled %s/%s (build the reactor: mvn -Pquick verify)", module, out).isDirectory();
                }
                if (Files.isDirectory(dir)) {
                    dirs.add(dir);
                    if (out.equals("test-classes")) {
                        try (Stream<Path> files = Files.walk(dir)) {
                            files.map(dir::relativize).map(Path::toString).filter(f -> f.endsWith(".class"))
                                    .forEach(f -> testCode.add(f.substring(0, f.length() - 6).replace('/', '.')));
                        }
                    }
                }
            }
        }
        // Kiln's own classes only: the JDK's and the libraries' are not followed (a call into them is matched by name),
        // and importing them would triple the time this check takes.
        ArchConfiguration archunit = ArchConfiguration.get();
        boolean resolving = archunit.resolveMissingDependenciesFromClassPath();
        archunit.setResolveMissingDependenciesFromClassPath(false);
        try {
            kiln = new ClassFileImporter().importPaths(dirs);
        } finally {
            archunit.setResolveMissingDependenciesFromClassPath(resolving);
        }
        spawning = reaching(call("java.lang.ProcessBuilder", "start").or(call("java.lang.Runtime", "exec")));
        serving = reaching(call("dev.kiln.core.serve.ProjectionDaemon$Builder", "start")
                .or(call("com.sun.net.httpserver.HttpServer", "create"))
                .or(call("java.net.ServerSocket", "accept")));
    }

    @Test
    void quickLaneTestClasses_spawnNoProcess_startNoDaemon_startNoJavaFx() {
        Set<String> offenders = new TreeSet<>();
        for (JavaClass c : testClasses()) {
            if (SLOW.stream().noneMatch(tag -> tagged(c, tag)) && !NEVER_TAKEN.containsKey(c.getName())) {
                why(c, spawning).or(() -> why(c, serving)).or(() -> fx(c)).ifPresent(why -> offenders.add(c.getName() + " (" + why + ")"));
            }
        }
        assertThat(offenders).as("quick-lane test classes (no @ProcessTest/@DaemonTest/@FxTest/@KernelTest) that reach a slow part").isEmpty();
    }

    @Test
    void testClassesThatSpawnProcessesInTestCode_areProcessTests() {
        assertThat(untagged(ProcessTest.class, c -> why(c, inTestCode(spawning)))).as("without @ProcessTest").isEmpty();
    }

    @Test
    void testClassesThatStartADaemonInTestCode_areDaemonTests() {
        assertThat(untagged(DaemonTest.class, c -> why(c, inTestCode(serving)))).as("without @DaemonTest").isEmpty();
    }

    @Test
    void testClassesThatStartJavaFx_areFxTests() {
        assertThat(untagged(FxTest.class, LaneTagsTest::fx)).as("without @FxTest").isEmpty();
    }

    @Test
    void theGuard_seesWhatItGuards() {
        // A guard that imports nothing passes everything: the known cases must be seen as what they are.
        assertThat(why(kiln.get("dev.kiln.core.seed.UvLauncherTest"), spawning)).as("through UvLauncher.run").isPresent();
        assertThat(why(kiln.get("dev.kiln.core.archive.SourceArchiveTest"), inTestCode(spawning))).as("through Trees.run").isPresent();
        assertThat(why(kiln.get("dev.kiln.core.seed.SeedWarmTest"), inTestCode(serving))).as("SlowWheelServer").isPresent();
        assertThat(fx(kiln.get("dev.kiln.ui.shell.MainWindowTest"))).as("TestFX").isPresent();
        assertThat(why(kiln.get("dev.kiln.app.cli.ArchiveCommandTest"), spawning)).as("an in-process CLI test").isEmpty();
    }

    private static List<JavaClass> testClasses() {
        return kiln.stream().filter(c -> testCode.contains(c.getName()) && c.getEnclosingClass().isEmpty())
                .filter(c -> c.getSimpleName().endsWith("Test") || c.getSimpleName().endsWith("IT")).toList();
    }

    /** One link of a chain: the reached code unit calls {@code callee} (also reached), or, at the end, {@code target}. */
    private record Step(@Nullable JavaCodeUnit callee, @Nullable String target) {
    }

    /** The chains that run in test code down to the last call (into main code or the JDK). */
    private static Map<JavaCodeUnit, Step> inTestCode(Map<JavaCodeUnit, Step> reached) {
        Map<JavaCodeUnit, Step> out = new HashMap<>();
        reached.forEach((u, step) -> {
            boolean tested = true;
            for (JavaCodeUnit k = u; tested && k != null; k = reached.get(k).callee()) {
                tested = testCode.contains(k.getOwner().getName());
            }
            if (tested) {
                out.put(u, step);
            }
        });
        return out;
    }

    private static String chain(JavaCodeUnit u, Map<JavaCodeUnit, Step> reached) {
        StringBuilder s = new StringBuilder(u.getFullName());
        Step step = reached.get(u);
        while (step.callee() != null) {
            s.append(" -> ").append(step.callee().getFullName());
            step = reached.get(step.callee());
        }
        return s.append(" -> ").append(step.target()).toString();
    }

    private static Optional<String> fx(JavaClass c) {
        return inside(c).flatMap(k -> k.getDirectDependenciesFromSelf().stream())
                .filter(d -> Stream.of("org.testfx", "javafx.stage", "javafx.application").anyMatch(d.getTargetClass().getPackageName()::startsWith))
                .findFirst().map(d -> "uses " + d.getTargetClass().getName());
    }

    /** Why {@code c} (or a class nested in it) is in {@code reached}: its first code unit there and that unit's chain. */
    private static Optional<String> why(JavaClass c, Map<JavaCodeUnit, Step> reached) {
        return inside(c).flatMap(k -> k.getCodeUnits().stream()).filter(reached::containsKey).findFirst()
                .map(u -> chain(u, reached));
    }

    /**
     * Every code unit that calls a matching target, or calls one that does, however deep (a fixpoint), with the chain
     * of calls that put it there (for the failure message).
     */
    private static Map<JavaCodeUnit, Step> reaching(Predicate<JavaAccess<?>> target) {
        Map<JavaCodeUnit, Step> reached = new HashMap<>();
        ArrayDeque<JavaCodeUnit> next = new ArrayDeque<>();
        for (JavaClass c : kiln) {
            for (JavaCodeUnit u : c.getCodeUnits()) {
                accesses(u).filter(target).findFirst().ifPresent(a -> {
                    reached.put(u, new Step(null, a.getTarget().getFullName()));
                    next.add(u);
                });
            }
        }
        while (!next.isEmpty()) {
            JavaCodeUnit callee = next.poll();
            for (JavaCodeUnit caller : callers().getOrDefault(callee, List.of())) {
                if (reached.putIfAbsent(caller, new Step(callee, null)) == null) {
                    next.add(caller);
                }
            }
        }
        return reached;
    }

    /** Who calls (or references) each code unit of Kiln: the call graph read backwards, built once. */
    private static Map<JavaCodeUnit, List<JavaCodeUnit>> callers() {
        if (callers == null) {
            callers = new HashMap<>();
            for (JavaClass c : kiln) {
                for (JavaCodeUnit u : c.getCodeUnits()) {
                    accesses(u).flatMap(LaneTagsTest::resolved).distinct()
                            .forEach(callee -> callers.computeIfAbsent(callee, k -> new ArrayList<>()).add(u));
                }
            }
        }
        return callers;
    }

    private static Stream<JavaAccess<?>> accesses(JavaCodeUnit u) {
        return Stream.concat(Stream.concat(u.getMethodCallsFromSelf().stream(), u.getConstructorCallsFromSelf().stream()),
                Stream.concat(u.getMethodReferencesFromSelf().stream(), u.getConstructorReferencesFromSelf().stream()));
    }

    private static Stream<JavaCodeUnit> resolved(JavaAccess<?> a) {
        return a.getTarget() instanceof com.tngtech.archunit.core.domain.AccessTarget.CodeUnitAccessTarget t
                ? t.resolveMember().stream().map(m -> (JavaCodeUnit) m) : Stream.empty();
    }

    private static Predicate<JavaAccess<?>> call(String owner, String name) {
        return a -> a.getTargetOwner().getName().equals(owner) && a.getName().equals(name);
    }

    private static Stream<JavaClass> inside(JavaClass top) {
        return kiln.stream().filter(k -> topLevel(k).equals(top));
    }

    private static JavaClass topLevel(JavaClass k) {
        JavaClass c = k;
        while (c.getEnclosingClass().isPresent()) {
            c = c.getEnclosingClass().get();
        }
        return c;
    }

    /** The test classes that {@code does} finds (with why) and that carry no {@code tag}, on themselves or a superclass. */
    private static Set<String> untagged(Class<? extends Annotation> tag, Function<JavaClass, Optional<String>> does) {
        Set<String> out = new TreeSet<>();
        for (JavaClass c : testClasses()) {
            if (!tagged(c, tag)) {
                does.apply(c).ifPresent(why -> out.add(c.getName() + " (" + why + ")"));
            }
        }
        return out;
    }

    private static boolean tagged(JavaClass c, Class<? extends Annotation> tag) {
        return Stream.concat(Stream.of(c), c.getAllRawSuperclasses().stream()).anyMatch(k -> k.isAnnotatedWith(tag));
    }
}
