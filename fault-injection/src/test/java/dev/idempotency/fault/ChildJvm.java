package dev.idempotency.fault;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * The command line of a child JVM: its options, this JVM's class path, and a class-data sharing
 * archive of its application ({@code -XX:SharedArchiveFile}). The suite starts about a hundred
 * children, the next one often only after the last is up, and loading classes is a large share of
 * a start-up: with the archive a Redis Stream child takes about 2.3 s of CPU to be ready instead of
 * 3.7 s on the suite's 2-core machine.
 * <p>
 * The archive of an application is made once, by a training run ({@code -XX:ArchiveClassesAtExit}
 * and {@code spring.context.exit=onRefresh}: the context is refreshed and the JVM halts before any
 * listener container starts, so it joins no group and reads nothing), in the background while the
 * first children start without it. It is kept in {@code target/fault-child-cds} with a key of
 * everything it depends on (JDK, options, class path and its files), shared by the Failsafe forks
 * (a file lock lets one of them train) and made again when the key changes. JDK 17 archives classes
 * from jars only, so the class path's directories are copied into jars there first. When anything
 * of this fails, the children start as before, without an archive; an archive that does not match
 * is ignored by the JVM ({@code -Xshare:auto}). {@code -Dfault.child.no-cds=true} turns it off.
 */
final class ChildJvm {

	private static final List<String> OPTIONS = List.of("-Xmx256m", "-Xss512k", "-XX:TieredStopAtLevel=1",
			"-Xshare:auto", "-XX:+UseSerialGC", "-XX:CICompilerCount=1", "-Djava.net.preferIPv4Stack=true");

	private static final Path DIRECTORY = Path.of("target", "fault-child-cds").toAbsolutePath();

	private static final Map<Class<?>, Archive> archives = new ConcurrentHashMap<>();

	private static String classPath;

	/** Whether the children use archives: not turned off, and the class path is all jars. */
	private static boolean sharing = !Boolean.getBoolean("fault.child.no-cds");

	private ChildJvm() {
	}

	/**
	 * The command that starts {@code application} with {@code properties} as system properties.
	 */
	static List<String> command(Class<?> application, Map<String, String> properties) {
		String classPath = classPath();
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		command.addAll(OPTIONS);
		Path archive = isSharing()
				? archives.computeIfAbsent(application, (app) -> new Archive(app, classPath)).readyOrTrain(properties)
				: null;
		if (archive != null) {
			command.add("-XX:SharedArchiveFile=" + archive);
		}
		properties.forEach((key, value) -> command.add("-D" + key + "=" + value));
		command.addAll(List.of("-cp", classPath, application.getName()));
		return command;
	}

	private static synchronized boolean isSharing() {
		return sharing;
	}

	/** This JVM's class path, its directories replaced by jars of their content (when sharing). */
	private static synchronized String classPath() {
		if (classPath == null) {
			String own = System.getProperty("java.class.path");
			classPath = own;
			if (sharing) {
				try (Lock lock = lock("classpath")) {
					List<String> entries = new ArrayList<>();
					for (String entry : own.split(File.pathSeparator)) {
						Path path = Path.of(entry);
						entries.add(Files.isDirectory(path) ? jar(path).toString() : entry);
					}
					classPath = String.join(File.pathSeparator, entries);
				}
				catch (IOException | RuntimeException ex) {
					sharing = false;
					System.out.println("[child-jvm] no class-data sharing, the class path stays as it is: " + ex);
				}
			}
		}
		return classPath;
	}

	/**
	 * A jar of the directory's content, reused while the content is unchanged, so that its
	 * modification time, which an archive records, stays the same.
	 */
	private static Path jar(Path directory) throws IOException {
		List<Path> files;
		try (Stream<Path> walk = Files.walk(directory)) {
			files = walk.filter((path) -> !path.equals(directory)).sorted().toList();
		}
		StringBuilder content = new StringBuilder();
		for (Path file : files) {
			content.append(directory.relativize(file))
				.append(' ')
				.append(Files.size(file))
				.append(' ')
				.append(Files.getLastModifiedTime(file).toMillis())
				.append('\n');
		}
		String name = directory.getFileName() + "-" + digest(directory.toAbsolutePath().toString()).substring(0, 8);
		Path jar = DIRECTORY.resolve(name + ".jar");
		Path key = DIRECTORY.resolve(name + ".jar.key");
		String fingerprint = digest(content.toString());
		if (Files.exists(jar) && Files.exists(key) && Files.readString(key).equals(fingerprint)) {
			return jar;
		}
		Path temporary = DIRECTORY.resolve(name + ".jar.tmp");
		try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(temporary))) {
			for (Path file : files) {
				String entry = directory.relativize(file).toString().replace(File.separatorChar, '/');
				boolean isDirectory = Files.isDirectory(file);
				out.putNextEntry(new JarEntry(isDirectory ? entry + "/" : entry));
				if (!isDirectory) {
					Files.copy(file, out);
				}
				out.closeEntry();
			}
		}
		Files.move(temporary, jar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
		Files.writeString(key, fingerprint);
		return jar;
	}

	/**
	 * Locks {@code <name>.lock} against the other forks; within this JVM, the callers are already
	 * one at a time (a second lock of the same file here would fail).
	 */
	private static Lock lock(String name) throws IOException {
		Files.createDirectories(DIRECTORY);
		FileChannel channel = FileChannel.open(DIRECTORY.resolve(name + ".lock"), StandardOpenOption.CREATE,
				StandardOpenOption.WRITE);
		try {
			channel.lock();
			return new Lock(channel);
		}
		catch (IOException | RuntimeException ex) {
			channel.close();
			throw ex;
		}
	}

	private static String digest(String text) {
		try {
			return HexFormat.of()
				.formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** The archive of one child application, and its training. */
	private static final class Archive {

		private final Class<?> application;

		private final String classPath;

		private final Path file;

		private final Path keyFile;

		private final String key;

		private volatile Path ready;

		private Thread training;

		Archive(Class<?> application, String classPath) {
			this.application = application;
			this.classPath = classPath;
			this.file = DIRECTORY.resolve(application.getSimpleName() + ".jsa");
			this.keyFile = DIRECTORY.resolve(application.getSimpleName() + ".jsa.key");
			this.key = key(classPath);
			if (isValid()) {
				this.ready = this.file;
			}
		}

		/**
		 * The archive, or {@code null} when it is not there yet: then a training run starts in the
		 * background (once), with {@code properties} (those of the child about to start).
		 */
		synchronized Path readyOrTrain(Map<String, String> properties) {
			if (this.ready == null && this.training == null) {
				Map<String, String> own = new LinkedHashMap<>(properties);
				this.training = new Thread(() -> train(own), "fault-cds-" + this.application.getSimpleName());
				this.training.setDaemon(true);
				this.training.start();
			}
			return this.ready;
		}

		private boolean isValid() {
			try {
				return Files.exists(this.file) && Files.exists(this.keyFile)
						&& Files.readString(this.keyFile).equals(this.key);
			}
			catch (IOException ex) {
				return false;
			}
		}

		private void train(Map<String, String> properties) {
			long started = System.nanoTime();
			String name = this.application.getSimpleName();
			try (Lock lock = lock(name)) {
				if (isValid()) {
					this.ready = this.file;
					return;
				}
				Path temporary = DIRECTORY.resolve(name + ".jsa.tmp");
				Files.deleteIfExists(temporary);
				Map<String, String> training = new LinkedHashMap<>(properties);
				training.put("fault.child", "cds-training");
				training.put("fault.events-file", DIRECTORY.resolve(name + "-training.events").toString());
				training.put("spring.context.exit", "onRefresh");
				// Not the child's name: the suite finds a child's database connections by it.
				training.computeIfPresent("spring.datasource.url", (property, url) -> url
					.replaceAll("ApplicationName=[^&]*", "ApplicationName=fault-cds-training"));
				List<String> command = new ArrayList<>();
				command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
				command.addAll(OPTIONS);
				command.add("-XX:ArchiveClassesAtExit=" + temporary);
				training.forEach((property, value) -> command.add("-D" + property + "=" + value));
				command.addAll(List.of("-cp", this.classPath, this.application.getName()));
				Process process = new ProcessBuilder(command).redirectErrorStream(true)
					.redirectOutput(DIRECTORY.resolve(name + "-training.log").toFile())
					.start();
				// Its stdin stays open until it ends: at the end of stdin a child exits (FaultPoints).
				try (OutputStream stdin = process.getOutputStream()) {
					if (!process.waitFor(5, TimeUnit.MINUTES)) {
						process.destroyForcibly();
						throw new IllegalStateException("the training run did not end within 5 minutes");
					}
				}
				if (process.exitValue() != 0 || !Files.exists(temporary) || Files.size(temporary) == 0) {
					throw new IllegalStateException("the training run ended with " + process.exitValue()
							+ " and no archive; see " + DIRECTORY.resolve(name + "-training.log"));
				}
				Files.move(temporary, this.file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
				Files.writeString(this.keyFile, this.key);
				this.ready = this.file;
				System.out.printf("[child-jvm] class-data sharing archive of %s made in %d ms%n", name,
						TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
			}
			catch (IOException | RuntimeException ex) {
				System.out.println("[child-jvm] " + name + " children start without a class-data sharing archive: "
						+ ex);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

		/** What the archive depends on: the JDK, the options, the class path and its files. */
		private static String key(String classPath) {
			StringBuilder key = new StringBuilder();
			key.append(System.getProperty("java.home")).append('\n').append(System.getProperty("java.vm.version"))
				.append('\n').append(OPTIONS).append('\n');
			for (String entry : classPath.split(File.pathSeparator)) {
				Path path = Path.of(entry);
				key.append(entry);
				try {
					key.append(' ')
						.append(Files.size(path))
						.append(' ')
						.append(Files.getLastModifiedTime(path).toMillis());
				}
				catch (IOException ex) {
					key.append(" missing");
				}
				key.append('\n');
			}
			return digest(key.toString());
		}

	}

	/** A lock on a file of {@link #DIRECTORY}, held until closed. */
	private record Lock(FileChannel channel) implements AutoCloseable {

		@Override
		public void close() throws IOException {
			// Closing the channel releases its lock.
			this.channel.close();
		}

	}

}
