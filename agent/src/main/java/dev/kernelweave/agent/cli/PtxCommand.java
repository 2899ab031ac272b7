package dev.kernelweave.agent.cli;

import dev.kernelweave.agent.cli.inspect.OutputFile;
import dev.kernelweave.ptx.KernelAccessSummary;
import dev.kernelweave.ptx.KernelMerging;
import dev.kernelweave.ptx.MergedKernel;
import dev.kernelweave.ptx.KernelSummaryFormat;
import dev.kernelweave.ptx.PtxAnalyzer;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/** {@code ptx [--json] FILE.ptx}: what each kernel of a PTX module does with its parameters. */
@Command(
    name = "ptx",
    description = {
      "What each kernel of a PTX module does with its parameters: reads, writes, both, or neither.",
      "",
      "For every kernel (.entry) of the PTX module FILE.ptx, prints one line: the kernel's name,",
      "a tab, then one token per parameter in order, separated by single spaces:",
      "  R      the kernel only loads from the memory the parameter points to",
      "  W      it only stores to it",
      "  RW     it loads and stores, uses atomics, or cannot be shown to do only one",
      "  V      it never uses the parameter as a global memory address (a scalar)",
      "a use is followed by [START,END) when the kernel touches only those bytes from the pointer's",
      "value (W[0,4): one float stored at the pointer; START may be negative); without it, the",
      "kernel may touch any byte of the allocation the pointer falls in, unless the use is followed",
      "by + (it never touches memory below the pointer: only at or after it) or +x<=L (the same,",
      "for launches with gridDim.x * blockDim.x <= L: a signed thread index stays non-negative);",
      "then NAME:USE for each .global or .const variable of the module the kernel uses (*:USE when",
      "it may use any of them), then OTHER when the kernel may touch global memory that neither",
      "names (pointers loaded from memory, calls it cannot follow). The answer is never optimistic.",
      "After a second tab: \"mergeable\" when k launches of the kernel may run as one launch of a",
      "merged variant generated from its PTX (same block shape and shared memory, independent",
      "instances), else \"not mergeable: REASON\" (reads %%clock64, indirect call, ...).",
      ""
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:done",
      "2:a usage error or a file that cannot be read as PTX"
    })
final class PtxCommand extends IoCommand {

  @Option(names = "--json", description = "print a JSON array instead, with each parameter's size in bytes"
      + " (and its extent, {\"start\":S,\"end\":E}, where bounded; \"forward\":true for +, with"
      + " \"forwardThreadsX\":L for +x<=L; \"mergeable\", with \"notMergeable\":REASON when false)")
  private boolean json;

  @Option(names = {"-h", "--help"}, usageHelp = true, order = Main.LAST, description = "this text")
  private boolean help;

  @Parameters(paramLabel = "FILE.ptx", arity = "0..*", hideParamSyntax = true, description = "a PTX module, as text")
  private List<Path> files = List.of();

  PtxCommand(CommandIo io) {
    super(io);
  }

  /** {@code kernelweave ptx ARGS...}. */
  static int run(String[] args, PrintStream out, PrintStream err) {
    return Main.run("ptx", args, out, err, ZoneId.systemDefault());
  }

  @Override
  public Integer call() {
    if (files.isEmpty()) {
      throw new ParameterException(spec.commandLine(), "no FILE.ptx given (kernelweave ptx --help)");
    }
    if (files.size() > 1) {
      throw new ParameterException(spec.commandLine(),
          "one FILE.ptx at a time, got '" + files.get(0) + "' and '" + files.get(1) + "'");
    }
    Path file = files.get(0);
    byte[] image;
    try {
      Path path = file;
      if (Files.isDirectory(path)) {
        err.println("kernelweave ptx: cannot read " + file + ": is a directory");
        return Main.USAGE;
      }
      image = Files.readAllBytes(path);
    } catch (NoSuchFileException e) {
      err.println("kernelweave ptx: cannot read " + file + ": no such file");
      return Main.USAGE;
    } catch (AccessDeniedException e) {
      err.println("kernelweave ptx: cannot read " + file + ": permission denied");
      return Main.USAGE;
    } catch (IOException e) {
      err.println("kernelweave ptx: cannot read " + file + ": " + OutputFile.reason(e));
      return Main.USAGE;
    }
    Optional<String> text = PtxAnalyzer.text(image);
    if (text.isEmpty()) {
      err.println("kernelweave ptx: " + file + " is not PTX text (a cubin or fatbin is binary)");
      return Main.USAGE;
    }

    List<KernelAccessSummary> kernels = PtxAnalyzer.analyze(text.get());
    List<MergedKernel> merged = KernelMerging.mergeAll(text.get());
    if (json) {
      out.println(KernelSummaryFormat.json(kernels, merged));
    } else {
      for (int k = 0; k < kernels.size(); k++) {
        out.println(KernelSummaryFormat.line(kernels.get(k)) + "\t" + merged.get(k).verdict());
      }
    }
    if (kernels.isEmpty()) err.println("kernelweave ptx: " + file + " defines no kernel (.entry)");
    out.flush();
    return 0;
  }
}
