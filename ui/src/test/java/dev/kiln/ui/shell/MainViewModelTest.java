package dev.kiln.ui.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.fleet.DaemonEntry;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shell's workspace menu actions, without a window. */
class MainViewModelTest {
    @TempDir
    Path tmp;

    @Test
    void openWorkspace_aWorkspace_goesToTheOpener() {
        Path other = tmp.resolve("other");
        new DemoWorkspace().write(other, 3, 1, false);
        MainViewModel vm = new MainViewModel(WorkspaceLayout.of(tmp.resolve("current")));
        List<Path> opened = new ArrayList<>();
        vm.setOpener(opened::add);

        vm.openWorkspace(other);

        assertThat(opened).containsExactly(other.toAbsolutePath().normalize());
        assertThat(vm.lastNoticeProperty().get()).isNull();
    }

    @Test
    void openWorkspace_notAWorkspace_notifiesWhyAndOpensNothing() throws Exception {
        Path plain = Files.createDirectories(tmp.resolve("holiday-photos"));
        MainViewModel vm = new MainViewModel(WorkspaceLayout.of(tmp.resolve("current")));
        List<Path> opened = new ArrayList<>();
        vm.setOpener(opened::add);

        vm.openWorkspace(plain);

        assertThat(opened).isEmpty();
        assertThat(vm.lastNoticeProperty().get().kind()).isEqualTo(Notices.Kind.FAILED);
        assertThat(vm.lastNoticeProperty().get().text()).startsWith(plain.toString()).contains("neither kiln.json nor tasks/");
        assertThat(vm.statusProperty().get()).startsWith("Not a Kiln workspace");
    }

    @Test
    void openWorkspace_theOneShown_isANoOp() {
        Path ws = tmp.resolve("ws");
        new DemoWorkspace().write(ws, 3, 1, false);
        MainViewModel vm = new MainViewModel(WorkspaceLayout.of(ws));
        List<Path> opened = new ArrayList<>();
        vm.setOpener(opened::add);

        vm.openWorkspace(ws);

        assertThat(opened).isEmpty();
    }

    @Test
    void openDaemon_aRecentOne_goesToTheDaemonOpener() {
        MainViewModel vm = new MainViewModel(WorkspaceLayout.of(tmp.resolve("current")));
        List<DaemonEntry> attached = new ArrayList<>();
        vm.setDaemonOpener(attached::add);
        DaemonEntry d = DaemonEntry.of("eval-1", "http://127.0.0.1:7117/", "", "");

        vm.openDaemon(d);

        assertThat(attached).containsExactly(d);
    }

    @Test
    void openDaemon_theOneShown_isNotConnectedAgain_anotherIs() {
        DaemonEntry shown = DaemonEntry.of("eval-1", "http://127.0.0.1:7117/", "", "");
        DaemonEntry other = DaemonEntry.of("eval-2", "http://127.0.0.1:7118/", "", "");
        MainViewModel vm = MainViewModel.attached(WorkspaceLayout.of(tmp.resolve("remote")), shown, "eval-1 (http://127.0.0.1:7117/)");
        List<DaemonEntry> attached = new ArrayList<>();
        vm.setDaemonOpener(attached::add);

        vm.openDaemon(DaemonEntry.of("same-url-other-name", "127.0.0.1:7117", "", ""));
        vm.openDaemon(other);

        assertThat(attached).containsExactly(other);
        assertThat(vm.attachedDaemon()).contains(shown);
        assertThat(vm.label()).isEqualTo("eval-1");
    }

    @Test
    void openDaemon_withoutAnApplication_showsTheFleetPage() {
        MainViewModel vm = new MainViewModel(WorkspaceLayout.of(tmp.resolve("current")));

        vm.openDaemon(DaemonEntry.of("eval-1", "http://127.0.0.1:7117/", "", ""));

        assertThat(vm.pageProperty().get()).isEqualTo(Page.FLEET);
    }
}
