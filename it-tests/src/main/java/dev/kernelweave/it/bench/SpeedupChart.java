package dev.kernelweave.it.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.imageio.ImageIO;

/**
 * A bar chart of a results file: per workload, the speedup over the serial program of the agent and
 * of the hand-tuned twin, with a line at 1.0. Drawn with Java2D, headless.
 *
 * <p>It needs the {@code java.desktop} module. Where the benchmark ran on a runtime without it, draw
 * the chart afterwards from the results file: {@code java -cp it-tests/target/classes
 * dev.kernelweave.it.bench.SpeedupChart it-tests/results/DEVICE.json}.
 */
public final class SpeedupChart {

  public static final int WIDTH = 1000;
  public static final int HEIGHT = 600;

  static final Color AGENT = new Color(0x1f, 0x77, 0xb4);
  static final Color TUNED = new Color(0xff, 0x7f, 0x0e);
  private static final Color BASELINE = new Color(0xb0, 0x20, 0x20);
  private static final Color GRID = new Color(0xe4, 0xe4, 0xe4);
  private static final BasicStroke DASHED =
      new BasicStroke(2, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10, new float[] {8, 6}, 0);

  private static final int LEFT = 80;
  private static final int RIGHT = 30;
  private static final int TOP = 90;
  private static final int BOTTOM = 70;

  private SpeedupChart() {}

  /** {@code SpeedupChart RESULTS.json [CHART.png]}: draws the chart of a results file. */
  public static void main(String[] args) throws IOException {
    if (args.length < 1 || args.length > 2) {
      System.err.println("usage: SpeedupChart RESULTS.json [CHART.png]   (default: the .json's name with .png)");
      System.exit(2);
    }
    Path json = Path.of(args[0]);
    Path png =
        args.length == 2 ? Path.of(args[1]) : json.resolveSibling(json.getFileName().toString().replaceFirst("\\.json$", "") + ".png");
    if (!(Json.parse(Files.readString(json, StandardCharsets.UTF_8)) instanceof Map<?, ?> results)) {
      throw new IOException(json + " is not a results file");
    }
    write(results, png);
    System.out.println(png);
  }

  /** One workload's bars. {@code note} is null where the workload ran cleanly. */
  record Group(String name, double agent, double tuned, String note) {}

  /**
   * Draws the chart of results, as {@link Report#toJson()} makes them and the results file holds
   * them, to a PNG file.
   *
   * @return false where the text could not be drawn (a runtime without fonts): the bars are there,
   *     the labels are not
   */
  public static boolean write(Map<?, ?> results, Path png) throws IOException {
    List<Group> groups = new ArrayList<>();
    if (results.get("workloads") instanceof List<?> workloads) {
      for (Object w : workloads) {
        if (w instanceof Map<?, ?> row) {
          String status = String.valueOf(row.get("status"));
          String note = status.equals("ok") ? null : status.startsWith("failed") ? "failed" : "outputs differ";
          groups.add(new Group(String.valueOf(row.get("name")), number(row.get("agent_speedup")), number(row.get("tuned_speedup")), note));
        }
      }
    }
    Map<?, ?> summary = results.get("summary") instanceof Map<?, ?> s ? s : Map.of();
    String title = "KernelWeave speedup over serial on " + results.get("device");
    String subtitle =
        String.format(
            Locale.ROOT,
            "median of every repetition; geometric mean (chain excluded): agent %s, hand-tuned %s; %s",
            Report.times(number(summary.get("agent_speedup_geomean"))),
            Report.times(number(summary.get("tuned_speedup_geomean"))),
            results.get("timestamp"));
    return draw(groups, title, subtitle, png);
  }

  private static double number(Object value) {
    return value instanceof Number n ? n.doubleValue() : Double.NaN;
  }

  private static boolean draw(List<Group> groups, String title, String subtitle, Path png) throws IOException {
    System.setProperty("java.awt.headless", "true");
    BufferedImage image = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    boolean labelled;
    try {
      g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
      g.setColor(Color.WHITE);
      g.fillRect(0, 0, WIDTH, HEIGHT);
      Plot plot = new Plot(groups);
      plot.drawBars(g);
      labelled = drawText(g, plot, title, subtitle);
    } finally {
      g.dispose();
    }
    Path dir = png.toAbsolutePath().getParent();
    if (dir != null) {
      Files.createDirectories(dir);
    }
    if (!ImageIO.write(image, "png", png.toFile())) {
      throw new IOException("no PNG writer in this Java runtime");
    }
    return labelled;
  }

  private static boolean drawText(Graphics2D g, Plot plot, String title, String subtitle) {
    try {
      g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
      plot.drawText(g, title, subtitle);
      return true;
    } catch (RuntimeException | Error e) {
      // A headless runtime without any font fails on the first string: the bars alone still say a lot.
      return false;
    }
  }

  /** The geometry shared by bars and labels. */
  private static final class Plot {
    private final List<Group> groups;
    private final double yMax;
    private final double step;
    private final int plotWidth = WIDTH - LEFT - RIGHT;
    private final int plotHeight = HEIGHT - TOP - BOTTOM;

    Plot(List<Group> groups) {
      this.groups = groups;
      double highest = 1;
      for (Group group : groups) {
        for (double s : new double[] {group.agent(), group.tuned()}) {
          if (Double.isFinite(s)) {
            highest = Math.max(highest, s);
          }
        }
      }
      double top = highest * 1.15;
      step = top <= 2 ? 0.25 : top <= 5 ? 0.5 : top <= 10 ? 1 : 2;
      yMax = Math.max(1.5, Math.ceil(top / step) * step);
    }

    int y(double value) {
      return TOP + plotHeight - (int) Math.round(value / yMax * plotHeight);
    }

    double groupWidth() {
      return (double) plotWidth / Math.max(1, groups.size());
    }

    int barWidth() {
      return (int) Math.max(4, Math.min(70, groupWidth() * 0.32));
    }

    /** The left edge of a bar: the agent's left of the group's centre, the tuned twin's right. */
    int barX(int index, boolean agent) {
      double centre = LEFT + groupWidth() * (index + 0.5);
      return (int) Math.round(agent ? centre - barWidth() - 2 : centre + 2);
    }

    void drawBars(Graphics2D g) {
      g.setStroke(new BasicStroke(1));
      for (double v = 0; v <= yMax + 1e-9; v += step) {
        g.setColor(GRID);
        g.drawLine(LEFT, y(v), LEFT + plotWidth, y(v));
      }
      for (int i = 0; i < groups.size(); i++) {
        Group group = groups.get(i);
        if (group.note() != null) {
          continue;
        }
        for (boolean agent : new boolean[] {true, false}) {
          double s = agent ? group.agent() : group.tuned();
          if (Double.isFinite(s)) {
            g.setColor(agent ? AGENT : TUNED);
            g.fillRect(barX(i, agent), y(s), barWidth(), y(0) - y(s));
          }
        }
      }
      g.setColor(Color.DARK_GRAY);
      g.drawLine(LEFT, TOP, LEFT, y(0));
      g.drawLine(LEFT, y(0), LEFT + plotWidth, y(0));
      g.setColor(BASELINE);
      g.setStroke(DASHED);
      g.drawLine(LEFT, y(1), LEFT + plotWidth, y(1));
      g.setStroke(new BasicStroke(1));
    }

    void drawText(Graphics2D g, String title, String subtitle) {
      g.setColor(Color.BLACK);
      g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 20));
      g.drawString(title, LEFT, 32);
      g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
      g.setColor(Color.DARK_GRAY);
      g.drawString(subtitle, LEFT, 54);

      for (double v = 0; v <= yMax + 1e-9; v += step) {
        String label = String.format(Locale.ROOT, step < 1 ? "%.2f" : "%.0f", v);
        g.drawString(label, LEFT - 8 - g.getFontMetrics().stringWidth(label), y(v) + 5);
      }
      Graphics2D rotated = (Graphics2D) g.create();
      rotated.rotate(-Math.PI / 2);
      rotated.drawString("speedup over serial (x)", -(TOP + plotHeight / 2 + 70), 22);
      rotated.dispose();

      for (int i = 0; i < groups.size(); i++) {
        Group group = groups.get(i);
        int centre = (int) Math.round(LEFT + groupWidth() * (i + 0.5));
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 14));
        g.setColor(Color.BLACK);
        centred(g, group.name(), centre, y(0) + 22);
        if (group.note() != null) {
          g.setColor(BASELINE);
          centred(g, group.note(), centre, y(0) - 12);
          continue;
        }
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        for (boolean agent : new boolean[] {true, false}) {
          double s = agent ? group.agent() : group.tuned();
          if (Double.isFinite(s)) {
            String value = String.format(Locale.ROOT, "%.2fx", s);
            int width = g.getFontMetrics().stringWidth(value);
            int x = barX(i, agent) + barWidth() / 2;
            // On white, so that a value near 1.0 stays readable across the dashed line.
            g.setColor(Color.WHITE);
            g.fillRect(x - width / 2 - 2, y(s) - 18, width + 4, 15);
            g.setColor(Color.BLACK);
            centred(g, value, x, y(s) - 6);
          }
        }
      }

      legend(g, AGENT, "serial program + KernelWeave agent", LEFT, 78);
      legend(g, TUNED, "hand-tuned multi-stream twin", LEFT + 290, 78);
      g.setColor(BASELINE);
      g.setStroke(DASHED);
      g.drawLine(LEFT + 530, 72, LEFT + 556, 72);
      g.setStroke(new BasicStroke(1));
      g.setColor(Color.BLACK);
      g.drawString("serial program = 1.0", LEFT + 562, 78);
    }

    private static void legend(Graphics2D g, Color color, String text, int x, int y) {
      g.setColor(color);
      g.fillRect(x, y - 11, 14, 14);
      g.setColor(Color.BLACK);
      g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
      g.drawString(text, x + 20, y);
    }

    private static void centred(Graphics2D g, String text, int x, int y) {
      FontMetrics metrics = g.getFontMetrics();
      g.drawString(text, x - metrics.stringWidth(text) / 2, y);
    }
  }
}
