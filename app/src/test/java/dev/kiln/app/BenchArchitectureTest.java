package dev.kiln.app;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.EvaluationResult;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Benchmarks have one home, off every production path: {@code dev.kiln.app.bench}, reached only by {@code kiln bench}. */
class BenchArchitectureTest {
    private static JavaClasses kiln;

    @BeforeAll
    static void importClasses() {
        kiln = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("dev.kiln");
    }

    @Test
    void benchmarkClasses_liveOnlyInTheBenchPackage() {
        classes().that().haveSimpleNameEndingWith("Benchmark").or().haveSimpleNameContaining("Bench")
                .should().resideInAPackage("dev.kiln.app.bench")
                .check(kiln);
    }

    @Test
    void benchPackage_isReachedOnlyByTheRootCommand() {
        noClasses().that().resideOutsideOfPackage("dev.kiln.app.bench").and().doNotHaveFullyQualifiedName("dev.kiln.app.cli.KilnCommand")
                .should().dependOnClassesThat().resideInAPackage("dev.kiln.app.bench")
                .check(kiln);
    }

    @Test
    void appPackages_formNoCycles() {
        slices().matching("dev.kiln.app.(*)..").should().beFreeOfCycles().check(kiln);
    }

    @Test
    void benchPackage_rule_failsOnAViolation() {
        // The rule above can fail: core's own classes are outside the bench package and named like what they are.
        EvaluationResult r = classes().that().haveSimpleName("Projector")
                .should().resideInAPackage("dev.kiln.app.bench").evaluate(kiln);
        assertThat(r.hasViolation()).isTrue();
    }
}
