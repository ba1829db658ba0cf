package dev.kiln.app;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.kiln.core.telemetry.KilnEvent;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
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

    @Test
    void ui_usesOnlyCoresExportedPackages() {
        DescribedPredicate<JavaClass> coreInternal = DescribedPredicate.describe("core classes outside its exported packages",
                c -> c.getPackageName().startsWith("dev.kiln.core") && !coreExports.contains(c.getPackageName()));
        noClasses().that().resideInAnyPackage("dev.kiln.ui..", "dev.kiln.app..")
                .should().dependOnClassesThat(coreInternal)
                .check(kiln);
    }

    @Test
    void headlessCommands_neverReachTheUi() {
        classes().that().resideInAPackage("dev.kiln.app..").and().doNotHaveSimpleName("Console")
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
