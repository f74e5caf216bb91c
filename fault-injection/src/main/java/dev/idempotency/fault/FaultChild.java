package dev.idempotency.fault;

import java.util.Map;

import org.springframework.boot.SpringApplication;

/**
 * What every child application of the suite shares with its parent: the stdout protocol (lines
 * starting with {@value #PREFIX}) and the way it is launched, with a watchdog so that no child
 * outlives a hung test.
 */
public final class FaultChild {

	/** Prefix of the lines the parent reads. */
	public static final String PREFIX = "@@FAULT ";

	private FaultChild() {
	}

	/**
	 * Runs a child application.
	 * @param application its {@code @SpringBootConfiguration} class
	 * @param configNames its {@code spring.config.name} (comma-separated; {@code fault-child} first)
	 * @param args the command line
	 */
	static void run(Class<?> application, String configNames, String[] args) {
		long maxLifetimeSeconds = Long.getLong("fault.max-lifetime-seconds", 1800);
		Thread watchdog = new Thread(() -> {
			try {
				Thread.sleep(maxLifetimeSeconds * 1000);
				announce("WATCHDOG halting after " + maxLifetimeSeconds + "s");
				Runtime.getRuntime().halt(4);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}, "fault-watchdog");
		watchdog.setDaemon(true);
		watchdog.start();
		SpringApplication spring = new SpringApplication(application);
		spring.setDefaultProperties(Map.of("spring.config.name", configNames));
		spring.run(args);
	}

	/** Prints one line for the parent. */
	static void announce(String line) {
		synchronized (System.out) {
			System.out.println(PREFIX + line);
			System.out.flush();
		}
	}

}
