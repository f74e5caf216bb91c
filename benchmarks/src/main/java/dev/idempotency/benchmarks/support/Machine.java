package dev.idempotency.benchmarks.support;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/** What a report says about the machine: the load average and the CPUs, heap and JVM. */
public final class Machine {

	private Machine() {
	}

	/** The 1, 5 and 15 minute load averages from {@code /proc/loadavg}, or the JVM's 1 minute one. */
	public static String loadAverage() {
		try {
			String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
			return parts[0] + " " + parts[1] + " " + parts[2];
		}
		catch (IOException | RuntimeException ex) {
			return String.format("%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
		}
	}

	/** CPUs, maximum heap and JVM. */
	public static String describe() {
		return Runtime.getRuntime().availableProcessors() + " CPUs, "
				+ String.format("%.1f GiB max heap", Runtime.getRuntime().maxMemory() / 1024.0 / 1024 / 1024) + ", "
				+ System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version");
	}

}
