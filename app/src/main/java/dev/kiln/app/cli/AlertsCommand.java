package dev.kiln.app.cli;

import dev.kiln.app.UserDirs;
import dev.kiln.app.common.CliException;
import dev.kiln.app.common.JsonOption;
import dev.kiln.core.alert.AlertRule;
import dev.kiln.core.alert.AlertRules;
import dev.kiln.core.workspace.AtomicWrite;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code kiln alerts ls|export}: the alert rules in force ({@code alerts.json} or the defaults), as Prometheus rules too. */
@Command(name = "alerts", mixinStandardHelpOptions = true,
        header = "List the alert rules in force, or export them as a Prometheus rules file.",
        description = {"The rules live in $XDG_CONFIG_HOME/kiln/alerts.json (default ~/.config/kiln/alerts.json); without",
            "the file, Kiln's defaults apply. A file that does not read is named with its line, and the defaults stay",
            "in force (the file is left as it is). docs/HEALTH.md describes the rules."},
        subcommands = {AlertsCommand.Ls.class, AlertsCommand.Export.class, CommandLine.HelpCommand.class})
final class AlertsCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "give a sub-command: ls or export");
    }

    /** The rules in force, and the file's problem on stderr when it did not read. */
    static AlertRules.Loaded load() {
        AlertRules.Loaded l = AlertRules.load(AlertRules.file(UserDirs.config(System.getenv())));
        l.problem().ifPresent(p -> System.err.println("kiln: " + p));
        return l;
    }

    @Command(name = "ls", mixinStandardHelpOptions = true, description = "List the alert rules in force.")
    static final class Ls implements Callable<Integer> {
        @Mixin
        JsonOption json;

        @Override
        public Integer call() {
            AlertRules.Loaded l = load();
            if (json.enabled()) {
                try {
                    System.out.println(dev.kiln.app.common.Json.compact(dev.kiln.app.common.Json.MAPPER.readTree(
                            AlertRules.json(l.rules()))));
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            } else {
                System.out.println((l.fromFile() ? "from " + l.file() : "defaults (no " + l.file() + ")")
                        + (l.problem().isPresent() ? " — " + l.file() + " did not read, see above" : "") + ":");
                for (AlertRule r : l.rules()) {
                    System.out.println(String.format(java.util.Locale.ROOT, "  %-28s %-8s %s", r.name(), r.severity(),
                            r.describe()));
                }
            }
            return l.problem().isPresent() ? 1 : 0;
        }
    }

    @Command(name = "export", mixinStandardHelpOptions = true,
            description = {"Write the rules as a Prometheus rules file (promtool check rules accepts it), over the metric",
                "names of kiln serve's /metrics; to stdout, or to --out FILE (replaced atomically)."})
    static final class Export implements Callable<Integer> {
        @Option(names = "--out", paramLabel = "FILE", description = "Write to FILE instead of stdout.")
        Path out;

        @Override
        public Integer call() {
            AlertRules.Loaded l = load();
            String text = AlertRules.prometheus(l.rules());
            if (out == null) {
                System.out.print(text);
            } else {
                try {
                    AtomicWrite.write(out, text.getBytes(StandardCharsets.UTF_8));
                } catch (IOException e) {
                    throw new CliException("cannot write " + out + ": " + e.getMessage());
                }
                System.err.println("kiln: wrote " + l.rules().size() + " rules to " + out);
            }
            return l.problem().isPresent() ? 1 : 0;
        }
    }
}
