package dev.kernelweave.it.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SpeedupChartTest {

  @TempDir Path dir;

  @BeforeEach
  void needsJavaDesktop() {
    Assumptions.assumeTrue(Report.canDraw(), "skipped: this Java runtime has no java.desktop module");
  }

  static Report report() {
    WorkloadMeasurement broken = new WorkloadMeasurement("heads");
    broken.fail("agent: exit 1");
    return ReportTest.report(
        List.of(ReportTest.measured("branches", 10, 5, 4), ReportTest.measured("rl-sim", 12, 6, 3), broken));
  }

  @Test
  void reportWritesAPngOfTheExpectedSizeWithBothBarsBesideTheJson() throws Exception {
    Path png = report().writeChart(dir);

    assertEquals(dir.resolve("NVIDIA-H100-80GB-HBM3.png"), png);
    assertTrue(Files.size(png) > 1000, "a PNG of " + Files.size(png) + " bytes");
    BufferedImage image = ImageIO.read(png.toFile());
    assertEquals(SpeedupChart.WIDTH, image.getWidth());
    assertEquals(SpeedupChart.HEIGHT, image.getHeight());
    assertTrue(count(image, SpeedupChart.AGENT.getRGB()) > 1000, "agent bars drawn");
    assertTrue(count(image, SpeedupChart.TUNED.getRGB()) > 1000, "tuned bars drawn");
  }

  @Test
  void drawsTheSameChartLaterFromTheResultsFile() throws Exception {
    Report report = report();
    Path json = report.writeJson(dir);
    Path direct = report.writeChart(dir.resolve("direct"));

    SpeedupChart.main(new String[] {json.toString()});

    Path later = dir.resolve("NVIDIA-H100-80GB-HBM3.png");
    assertTrue(Files.isRegularFile(later));
    BufferedImage a = ImageIO.read(direct.toFile());
    BufferedImage b = ImageIO.read(later.toFile());
    assertEquals(count(a, SpeedupChart.AGENT.getRGB()), count(b, SpeedupChart.AGENT.getRGB()));
    assertEquals(count(a, SpeedupChart.TUNED.getRGB()), count(b, SpeedupChart.TUNED.getRGB()));
  }

  private static int count(BufferedImage image, int rgb) {
    int n = 0;
    for (int y = 0; y < image.getHeight(); y++) {
      for (int x = 0; x < image.getWidth(); x++) {
        n += image.getRGB(x, y) == rgb ? 1 : 0;
      }
    }
    return n;
  }
}
