package dev.kiln.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code kiln SUB …} runs on a command line holding only SUB (KilnCommand.commandLine(args)): what it shows must be
 * exactly the full tree's, for every sub-command and every nested one, so the command surface is unchanged.
 */
class LeanCommandLineTest {

    @Test
    void everySubcommand_leanUsage_isTheFullTreesUsage() {
        Map<String, CommandLine> full = KilnCommand.commandLine().getSubcommands();
        assertThat(full.keySet()).as("Console.SUB_COMMANDS").containsExactlyInAnyOrderElementsOf(Console.SUB_COMMANDS);
        for (Map.Entry<String, CommandLine> e : full.entrySet()) {
            if ("help".equals(e.getKey())) {
                continue;
            }
            CommandLine lean = KilnCommand.commandLine(e.getKey(), "--help");
            assertThat(lean.getSubcommands()).as(e.getKey()).containsOnlyKeys(e.getKey());
            assertSameUsage(e.getValue(), lean.getSubcommands().get(e.getKey()));
        }
    }

    @Test
    void badOption_leanError_isTheFullTreesError() {
        for (String sub : new String[] {"status", "project", "bench", "serve"}) {
            String[] args = {sub, "--no-such-option"};
            String[] fullRun = run(KilnCommand.commandLine(), args);
            String[] leanRun = run(KilnCommand.commandLine(args), args);
            assertThat(leanRun).as(sub).containsExactly(fullRun);
            assertThat(leanRun[0]).as(sub + " exit").isEqualTo("2");
            assertThat(leanRun[1]).contains("Usage: kiln " + sub);
        }
    }

    @Test
    void helpAndOptionsFirst_useTheFullTree() {
        assertThat(KilnCommand.commandLine("help", "status").getSubcommands()).containsKey("project");
        assertThat(KilnCommand.commandLine("--help").getSubcommands()).containsKey("status");
        assertThat(KilnCommand.commandLine("/some/workspace").getSubcommands()).containsKey("status");
    }

    private static void assertSameUsage(CommandLine full, CommandLine lean) {
        assertThat(lean.getUsageMessage()).isEqualTo(full.getUsageMessage());
        assertThat(lean.getCommandSpec().qualifiedName()).isEqualTo(full.getCommandSpec().qualifiedName());
        assertThat(lean.getSubcommands().keySet()).isEqualTo(full.getSubcommands().keySet());
        for (Map.Entry<String, CommandLine> nested : full.getSubcommands().entrySet()) {
            assertSameUsage(nested.getValue(), lean.getSubcommands().get(nested.getKey()));
        }
    }

    /** Exit code and what picocli printed to stderr. */
    private static String[] run(CommandLine cl, String... args) {
        StringWriter err = new StringWriter();
        cl.setErr(new PrintWriter(err, true));
        cl.setOut(new PrintWriter(new StringWriter(), true));
        return new String[] {Integer.toString(cl.execute(args)), err.toString()};
    }
}
