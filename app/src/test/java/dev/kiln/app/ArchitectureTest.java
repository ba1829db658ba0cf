package dev.kiln.app;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import dev.kiln.core.archfixture.Hidden;
import dev.kiln.core.archfixture.Lonely;
import dev.kiln.core.telemetry.KilnEvent;
import dev.kiln.ui.archfixture.HoldsKilnViewModel;
import dev.kiln.ui.archfixture.ReachesIn;
import dev.kiln.ui.archfixture.ReachesTheDaemon;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The layering that keeps core a library and the CLI headless. */
class ArchitectureTest {
    private static JavaClasses kiln;
    private static Set<String> coreExports;

    @BeforeAll
    static void importClasses() throws Exception {
        kiln = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("dev.kiln");
        coreExports = coreModule().exports().stream().map(ModuleDescriptor.Exports::source).collect(Collectors.toSet());
    }

    @Test
    void importedEveryModule() {
        assertThat(kiln.stream().map(JavaClass::getPackageName))
                .anyMatch(p -> p.startsWith("dev.kiln.core"))
                .anyMatch(p -> p.startsWith("dev.kiln.ui"))
                .anyMatch(p -> p.startsWith("dev.kiln.app"))
                .anyMatch(p -> p.startsWith("dev.kiln.icons"));
        assertThat(coreExports).contains("dev.kiln.core.telemetry");
    }

    @Test
    void core_neverDependsOnJavaFx() {
        noClasses().that().resideInAPackage("dev.kiln.core..")
                .should().dependOnClassesThat().resideInAnyPackage("javafx..", "org.controlsfx..", "atlantafx..")
                .check(kiln);
    }

    @Test
    void core_neverDependsOnUiOrApp() {
        noClasses().that().resideInAPackage("dev.kiln.core..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.kiln.ui..", "dev.kiln.app..")
                .check(kiln);
    }

    /** ui and app reach core only through the packages its module descriptor exports (read from the built module). */
    static ArchRule usesOnlyExportedCorePackages(Set<String> exports) {
        DescribedPredicate<JavaClass> coreInternal = DescribedPredicate.describe("core classes outside its exported packages",
                c -> c.getPackageName().startsWith("dev.kiln.core") && !exports.contains(c.getPackageName()));
        return noClasses().that().resideInAnyPackage("dev.kiln.ui..", "dev.kiln.app..")
                .should().dependOnClassesThat(coreInternal);
    }

    @Test
    void ui_usesOnlyCoresExportedPackages() {
        usesOnlyExportedCorePackages(coreExports).check(kiln);
    }

    /** Core's exports are qualified: ui may use only what core exports to dev.kiln.ui, app only what it exports to dev.kiln.app. */
    static Set<String> exportedTo(String module) throws Exception {
        return coreModule().exports().stream().filter(e -> !e.isQualified() || e.targets().contains(module))
                .map(ModuleDescriptor.Exports::source).collect(Collectors.toSet());
    }

    static ArchRule usesOnlyCorePackagesExportedTo(String modulePackage, Set<String> exports) {
        DescribedPredicate<JavaClass> notForIt = DescribedPredicate.describe("core classes not exported to " + modulePackage,
                c -> c.getPackageName().startsWith("dev.kiln.core") && !exports.contains(c.getPackageName()));
        return noClasses().that().resideInAPackage(modulePackage + "..").should().dependOnClassesThat(notForIt);
    }

    @Test
    void uiAndApp_useOnlyCorePackagesExportedToThem() throws Exception {
        Set<String> toUi = exportedTo("dev.kiln.ui");
        Set<String> toApp = exportedTo("dev.kiln.app");
        // Every export names its readers (a new package must choose them); http is for nobody outside core.
        assertThat(coreModule().exports()).isNotEmpty().allMatch(ModuleDescriptor.Exports::isQualified);
        assertThat(coreExports).doesNotContain("dev.kiln.core.http");
        assertThat(toUi).contains("dev.kiln.core.engine").doesNotContain("dev.kiln.core.http");
        assertThat(toApp).contains("dev.kiln.core.demo").doesNotContain("dev.kiln.core.http");
        usesOnlyCorePackagesExportedTo("dev.kiln.ui", toUi).check(kiln);
        usesOnlyCorePackagesExportedTo("dev.kiln.app", toApp).check(kiln);
        // and it bites: ReachesIn (ui) uses a core package that is exported to nobody
        JavaClasses fixture = new ClassFileImporter().importClasses(ReachesIn.class, Hidden.class);
        assertThatThrownBy(() -> usesOnlyCorePackagesExportedTo("dev.kiln.ui", toUi).check(fixture))
                .isInstanceOf(AssertionError.class).hasMessageContaining(Hidden.class.getName());
    }

    @Test
    void ui_usingAPackageExportedOnlyToApp_fails() throws Exception {
        // The daemon package is the CLI's: a ui class that names it breaks the qualified export, not only an unexported one.
        Set<String> toUi = exportedTo("dev.kiln.ui");
        assertThat(exportedTo("dev.kiln.app")).contains("dev.kiln.core.serve");
        assertThat(toUi).doesNotContain("dev.kiln.core.serve").contains("dev.kiln.core.serve.client");
        JavaClasses fixture = new ClassFileImporter().importClasses(ReachesTheDaemon.class,
                dev.kiln.core.serve.ProjectionDaemon.class);
        assertThatThrownBy(() -> usesOnlyCorePackagesExportedTo("dev.kiln.ui", toUi).check(fixture))
                .isInstanceOf(AssertionError.class).hasMessageContaining(ReachesTheDaemon.class.getName())
                .hasMessageContaining("dev.kiln.core.serve.ProjectionDaemon");
    }

    @Test
    void ui_usesOnlyCoresExportedPackages_failsOnAFixtureThatReachesIn() {
        // dev.kiln.core.archfixture is not exported by core's real descriptor; ReachesIn (ui) uses it.
        JavaClasses fixture = new ClassFileImporter().importClasses(ReachesIn.class, Hidden.class);
        assertThat(coreExports).doesNotContain("dev.kiln.core.archfixture");
        assertThatThrownBy(() -> usesOnlyExportedCorePackages(coreExports).check(fixture))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining(ReachesIn.class.getName()).hasMessageContaining(Hidden.class.getName());
    }

    /**
     * Public top-level core types nothing outside their own package uses, on purpose: the true API a caller reaches
     * through another public type (so no other package names it yet), with the reason for each.
     */
    static final Map<String, String> PUBLIC_BY_DESIGN = Map.ofEntries(
            Map.entry("dev.kiln.core.startup.BytecodeException", "what Bytecode's public methods throw; callers may catch it"),
            Map.entry("dev.kiln.core.startup.ServerConfigException", "what ServerConfigs and Kiln document they throw; names the file, server and field"));

    /**
     * Pending merge (issue 11): public only because the daemon (core.api) or a benchmark in core still needs them
     * across packages; the serve and bench moves make them package-private or move them, then these entries go.
     */
    static final Map<String, String> PENDING_MERGE = Map.of();

    /** A public top-level type in {@code dev.kiln.core..} must be used outside its package, or be allow-listed. */
    static ArchRule publicCoreTypesAreUsedOutsideTheirPackage(Set<String> allowed) {
        ArchCondition<JavaClass> usedOutside = new ArchCondition<>("be used by a class outside its own package") {
            @Override
            public void check(JavaClass c, ConditionEvents events) {
                // A use of a nested type (ChangePacer.Settings, SeedEvent.WarmStarted) is a use of its top-level type.
                boolean used = c.getPackage().getClasses().stream()
                        .filter(k -> topLevel(k).equals(c))
                        .flatMap(k -> k.getDirectDependenciesToSelf().stream())
                        .map(d -> topLevel(d.getOriginClass()).getPackageName())
                        .anyMatch(p -> !p.equals(c.getPackageName()));
                if (!used) {
                    events.add(SimpleConditionEvent.violated(c, c.getName()
                            + " is public but nothing outside " + c.getPackageName() + " uses it: make it package-private"
                            + " (or allow-list it in ArchitectureTest with the reason it is API)"));
                }
            }
        };
        return classes().that().resideInAPackage("dev.kiln.core..").and().arePublic().and().areTopLevelClasses()
                .and(DescribedPredicate.describe("are not allow-listed", (JavaClass c) -> !allowed.contains(c.getName())))
                .and().doNotHaveSimpleName("package-info")
                .should(usedOutside);
    }

    private static JavaClass topLevel(JavaClass c) {
        JavaClass t = c;
        while (t.getEnclosingClass().isPresent()) {
            t = t.getEnclosingClass().get();
        }
        return t;
    }

    @Test
    void core_everyPublicTypeIsUsedOutsideItsPackage() {
        Set<String> allowed = new HashSet<>(PUBLIC_BY_DESIGN.keySet());
        allowed.addAll(PENDING_MERGE.keySet());
        publicCoreTypesAreUsedOutsideTheirPackage(allowed).check(kiln);
    }

    @Test
    void core_allowListedTypes_areStillPublicAndUnusedOutside() {
        // An entry that is no longer needed (the type went package-private, moved, or gained a user) must go.
        Set<String> allowed = new HashSet<>(PUBLIC_BY_DESIGN.keySet());
        allowed.addAll(PENDING_MERGE.keySet());
        List<String> stale = new ArrayList<>();
        for (String name : allowed) {
            JavaClasses one = kiln.that(DescribedPredicate.describe(name, (JavaClass c) -> c.getName().equals(name)));
            if (!kiln.contain(name) || !publicCoreTypesAreUsedOutsideTheirPackage(Set.of()).allowEmptyShould(true).evaluate(one).hasViolation()) {
                stale.add(name);
            }
        }
        assertThat(stale).as("allow-list entries no longer needed").isEmpty();
    }

    @Test
    void core_everyPublicTypeIsUsedOutsideItsPackage_failsOnAFixtureNobodyUses() {
        JavaClasses fixture = new ClassFileImporter().importClasses(ReachesIn.class, Hidden.class, Lonely.class);
        assertThatThrownBy(() -> publicCoreTypesAreUsedOutsideTheirPackage(Set.of()).check(fixture))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining(Lonely.class.getName() + " is public but nothing outside")
                .hasMessageNotContaining(Hidden.class.getName() + " is public");
    }

    /**
     * View models see a workspace only through {@code dev.kiln.core.engine.Engine}, so they work the same on a daemon
     * reached over its API: none may hold the in-process {@code Kiln} (or reach past the engine to its parts).
     */
    static ArchRule viewModelsUseTheEngineNotKiln() {
        return noClasses().that().resideInAPackage("dev.kiln.ui..").and().haveSimpleNameEndingWith("ViewModel")
                .should().dependOnClassesThat().haveFullyQualifiedName("dev.kiln.core.Kiln")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("dev.kiln.core.contract.LeafIdHeal")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("dev.kiln.core.startup.ProbeRuns")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("dev.kiln.core.serve.WorkspaceOwnership");
    }

    @Test
    void viewModels_useTheEngine_neverKiln() {
        assertThat(kiln.stream().filter(c -> c.getPackageName().startsWith("dev.kiln.ui") && c.getSimpleName().endsWith("ViewModel")))
                .as("the rule has view models to check").hasSizeGreaterThanOrEqualTo(6);
        viewModelsUseTheEngineNotKiln().check(kiln);
    }

    @Test
    void viewModels_useTheEngine_failsOnAFixtureThatHoldsKiln() {
        JavaClasses fixture = new ClassFileImporter().importClasses(HoldsKilnViewModel.class, dev.kiln.core.Kiln.class);
        assertThatThrownBy(() -> viewModelsUseTheEngineNotKiln().check(fixture))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining(HoldsKilnViewModel.class.getName()).hasMessageContaining("dev.kiln.core.Kiln");
    }

    @Test
    void headlessCommands_neverReachTheUi() {
        // Console opens the window; UiBenchmark is `kiln bench ui`, the console's own benchmark (it loads JavaFX when run),
        // and FleetBenchmark `kiln bench fleet`, which times the Fleet page the same way; bench.fx is their console
        // load (ConsoleLoad, FleetLoad, ReplayLoad: the bench home's JavaFX part, reached only from those two) and the
        // console's launch hooks (ConsoleHooks: first frame, empty Stage, screenshot; reached from Console).
        classes().that().resideInAPackage("dev.kiln.app..").and().doNotHaveSimpleName("Console").and().doNotHaveSimpleName("UiBenchmark")
                .and().doNotHaveSimpleName("FleetBenchmark").and().resideOutsideOfPackage("dev.kiln.app.bench.fx")
                .should().onlyDependOnClassesThat().resideOutsideOfPackages("dev.kiln.ui..", "javafx..")
                .check(kiln);
    }

    @Test
    void corePackages_formNoCycles() {
        slices().matching("dev.kiln.core.(*)..").should().beFreeOfCycles().check(kiln);
    }

    @Test
    void modules_formNoCycles() {
        slices().matching("dev.kiln.(*)..").should().beFreeOfCycles().check(kiln);
    }

    /**
     * {@code serve} is three packages with one direction: the daemon uses the client and the wire, the client only the
     * wire, the wire neither (so one end changes without the other, and the wire, exported to nobody, stays core's).
     */
    @Test
    void serve_daemonClientWire_oneDirection() {
        assertThat(kiln.stream().map(JavaClass::getPackageName)).contains("dev.kiln.core.serve.client", "dev.kiln.core.serve.wire");
        noClasses().that().resideInAPackage("dev.kiln.core.serve.wire")
                .should().dependOnClassesThat().resideInAnyPackage("dev.kiln.core.serve", "dev.kiln.core.serve.client")
                .check(kiln);
        noClasses().that().resideInAPackage("dev.kiln.core.serve.client")
                .should().dependOnClassesThat().resideInAPackage("dev.kiln.core.serve")
                .check(kiln);
        // The wire is core's own: exported to nobody, so a ui or app class that names a wire type fails the export rules.
        assertThat(coreExports).contains("dev.kiln.core.serve", "dev.kiln.core.serve.client").doesNotContain("dev.kiln.core.serve.wire");
    }

    @Test
    void uiPackages_formNoCycles() {
        slices().matching("dev.kiln.ui.(*)..").should().beFreeOfCycles().check(kiln);
    }

    /** Core's module descriptor, read from wherever its classes are (a jar or target/classes). */
    private static ModuleDescriptor coreModule() throws Exception {
        URL location = KilnEvent.class.getProtectionDomain().getCodeSource().getLocation();
        Path p = Path.of(location.toURI());
        if (Files.isDirectory(p)) {
            try (InputStream in = Files.newInputStream(p.resolve("module-info.class"))) {
                return ModuleDescriptor.read(in);
            }
        }
        try (JarFile jar = new JarFile(p.toFile()); InputStream in = jar.getInputStream(jar.getEntry("module-info.class"))) {
            return ModuleDescriptor.read(in);
        }
    }
}
