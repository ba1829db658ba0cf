package dev.kiln.app.cli;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code kiln [WORKSPACE]} opens the console without picocli, and means what the parsed command line would. */
class ConsoleStartTest {
    @Test
    void subCommandNames_areTheCommandLines() {
        assertThat(Console.SUB_COMMANDS).containsExactlyInAnyOrderElementsOf(KilnCommand.commandLine().getSubcommands().keySet());
    }

    @Test
    void opensConsoleOnly_noArgsOrOneWorkspace_notOptionsOrSubCommands() {
        assertThat(Console.opensConsoleOnly(new String[0])).isTrue();
        assertThat(Console.opensConsoleOnly(new String[] {"/srv/ws"})).isTrue();
        assertThat(Console.opensConsoleOnly(new String[] {"ws"})).isTrue();
        assertThat(Console.opensConsoleOnly(new String[] {"demo"})).isFalse();
        assertThat(Console.opensConsoleOnly(new String[] {"help"})).isFalse();
        assertThat(Console.opensConsoleOnly(new String[] {"--version"})).isFalse();
        assertThat(Console.opensConsoleOnly(new String[] {"-h"})).isFalse();
        assertThat(Console.opensConsoleOnly(new String[] {""})).isFalse();
        assertThat(Console.opensConsoleOnly(new String[] {"ws", "--page", "startup"})).isFalse();
    }

    @Test
    void start_notAWorkspace_exits2WithWhatToDo_likeTheParsedCommand(@TempDir Path empty) {
        PrintStream was = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try {
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            code = Console.start(new String[] {empty.toString()});
        } finally {
            System.setErr(was);
        }
        CliRun parsed = CliRun.kiln(empty.toString());

        assertThat(code).isEqualTo(2).isEqualTo(parsed.exit());
        assertThat(err.toString(StandardCharsets.UTF_8).strip()).contains("is not a Kiln workspace").contains("kiln demo")
                .isEqualTo(parsed.err().strip());
    }

    @Test
    void consoleStartPath_usesNoPicocli() {
        noClasses().that().haveFullyQualifiedName(Console.class.getName())
                .should().dependOnClassesThat().resideInAPackage("picocli..")
                .check(new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("dev.kiln.app"));
    }
}
