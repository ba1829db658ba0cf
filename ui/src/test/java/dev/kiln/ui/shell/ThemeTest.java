package dev.kiln.ui.shell;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Which theme the desktop asks for, and that Kiln's own CSS leaves colours to the theme. */
class ThemeTest {
    @Test
    void fromDesktop_gsettingsAnswers_itWinsOverGtkTheme() {
        assertThat(Theme.fromDesktop(Map.of("GTK_THEME", "Adwaita:dark"), () -> Optional.of("'prefer-light'"))).isEqualTo(Theme.LIGHT);
        assertThat(Theme.fromDesktop(Map.of(), () -> Optional.of("'prefer-dark'"))).isEqualTo(Theme.DARK);
        assertThat(Theme.fromDesktop(Map.of(), () -> Optional.of("'default'"))).isEqualTo(Theme.LIGHT);
    }

    @Test
    void fromDesktop_noGsettings_gtkThemeDecides() {
        assertThat(Theme.fromDesktop(Map.of("GTK_THEME", "Adwaita:dark"), Optional::empty)).isEqualTo(Theme.DARK);
        assertThat(Theme.fromDesktop(Map.of("GTK_THEME", "Adwaita"), Optional::empty)).isEqualTo(Theme.LIGHT);
    }

    @Test
    void fromDesktop_nothingKnown_dark() {
        assertThat(Theme.fromDesktop(Map.of(), Optional::empty)).isEqualTo(Theme.DARK);
        assertThat(Theme.fromDesktop(Map.of("GTK_THEME", " "), () -> Optional.of(""))).isEqualTo(Theme.DARK);
    }

    @Test
    void parse_keysRoundTrip_otherWordsAreNone() {
        for (Theme t : Theme.values()) {
            assertThat(Theme.parse(t.key())).contains(t);
            assertThat(t.other().other()).isEqualTo(t);
        }
        assertThat(Theme.parse(" DARK ")).contains(Theme.DARK);
        assertThat(Theme.parse("solarized")).isEmpty();
        assertThat(Theme.parse(null)).isEmpty();
    }

    @Test
    void toggle_switchesTheme_digitsPickPagesInSidebarOrder() {
        MainViewModel vm = new MainViewModel(dev.kiln.core.workspace.WorkspaceLayout.of(java.nio.file.Path.of("/w")));
        vm.setTheme(Theme.LIGHT);
        vm.toggleTheme();
        assertThat(vm.themeProperty().get()).isEqualTo(Theme.DARK);
        assertThat(MainViewModel.pageForDigit(1)).contains(Page.values()[0]);
        assertThat(MainViewModel.pageForDigit(Page.values().length)).contains(Page.values()[Page.values().length - 1]);
        assertThat(MainViewModel.pageForDigit(Page.values().length + 1)).isEmpty();
        assertThat(MainViewModel.pageForDigit(0)).isEmpty();
    }

    /** The first frame loads the build's binary copy of AtlantaFX's sheet; it must hold the same rules. */
    @Test
    void userAgentStylesheet_isTheBuildsBinaryCopy_withAtlantaFxsRules() throws Exception {
        for (Theme t : Theme.values()) {
            String url = t.userAgentStylesheet();
            assertThat(url).as(t.key()).endsWith("/dev/kiln/ui/shell/" + t.binaryStylesheet());
            javafx.css.Stylesheet binary = javafx.css.Stylesheet.loadBinary(new java.net.URL(url));
            String css = t.atlantaFxStylesheet();
            javafx.css.Stylesheet text = new javafx.css.CssParser().parse(
                    atlantafx.base.theme.PrimerLight.class.getResource(css.startsWith("/") ? css : "/" + css));
            assertThat(binary.getRules()).hasSameSizeAs(text.getRules()).hasSizeGreaterThan(500);
            for (int i = 0; i < text.getRules().size(); i += 97) {
                assertThat(binary.getRules().get(i).getSelectors().toString()).isEqualTo(text.getRules().get(i).getSelectors().toString());
                assertThat(binary.getRules().get(i).getDeclarations()).hasSameSizeAs(text.getRules().get(i).getDeclarations());
            }
        }
    }

    /** A rule the parser cannot read drops the rules after it silently (a lost brace once hid half of kiln.css). */
    @Test
    void kilnCss_parsesWithoutAnError() throws Exception {
        javafx.css.CssParser.errorsProperty().clear();
        javafx.css.Stylesheet sheet = new javafx.css.CssParser().parse(MainWindow.class.getResource("kiln.css"));
        assertThat(javafx.css.CssParser.errorsProperty()).extracting(Object::toString).as("kiln.css parse errors").isEmpty();
        assertThat(sheet.getRules()).hasSizeGreaterThan(50);
    }

    /** A literal colour would look right in one theme only; Kiln's CSS takes colours from theme variables. */
    @Test
    void kilnCss_hasNoLiteralColours() throws Exception {
        String css;
        try (InputStream in = MainWindow.class.getResourceAsStream("kiln.css")) {
            css = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        String noComments = css.replaceAll("(?s)/\\*.*?\\*/", "");
        assertThat(noComments).contains("-color-");
        // The one place a literal belongs: the charts' palette (Okabe-Ito), defined once per theme as looked-up colours
        // and used through them. Only a block holding nothing but -kiln-series-N definitions is taken out.
        Pattern palette = Pattern.compile("\\.root(:dark)?\\s*\\{(\\s*-kiln-series-\\d+:\\s*#[0-9a-fA-F]{6};)+\\s*}");
        assertThat(palette.matcher(noComments).results().count()).as("the palette, once for light and once for dark").isEqualTo(2);
        noComments = palette.matcher(noComments).replaceAll("");
        assertThat(Pattern.compile("#[0-9a-fA-F]{3,8}\\b|rgba?\\(|hsb\\(|\\b(white|black)\\b").matcher(noComments).find())
                .as("literal colour in kiln.css").isFalse();
    }
}
