package dev.kernelweave.it.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SpeedupChartTest {

  @Test
  void writesAPngOfTheExpectedSizeWithBothBars(@TempDir Path dir) throws Exception {
    WorkloadMeasurement broken = new WorkloadMeasurement("heads");
    broken.fail("agent: exit 1");
    List<WorkloadMeasurement> workloads =
        List.of(ReportTest.measured("branches", 10, 5, 4), ReportTest.measured("rl-sim", 12, 6, 3), broken);
    Path png = dir.resolve("charts/device.png");

    SpeedupChart.write(workloads, "KernelWeave speedup over serial on a test", "subtitle", png);

    assertTrue(Files.size(png) > 1000, "a PNG of " + Files.size(png) + " bytes");
    BufferedImage image = ImageIO.read(png.toFile());
    assertEquals(SpeedupChart.WIDTH, image.getWidth());
    assertEquals(SpeedupChart.HEIGHT, image.getHeight());
    assertTrue(count(image, SpeedupChart.AGENT.getRGB()) > 1000, "agent bars drawn");
    assertTrue(count(image, SpeedupChart.TUNED.getRGB()) > 1000, "tuned bars drawn");
  }

  @Test
  void reportWritesTheChartBesideTheJson(@TempDir Path dir) throws Exception {
    Report report = ReportTest.report(List.of(ReportTest.measured("rl-sim", 12, 6, 3)));
    Path png = report.writeChart(dir);
    assertEquals(dir.resolve("NVIDIA-H100-80GB-HBM3.png"), png);
    assertEquals(SpeedupChart.HEIGHT, ImageIO.read(png.toFile()).getHeight());
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
