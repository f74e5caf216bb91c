package dev.idempotency.testsupport;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;

/**
 * One command sent to one Redis node over a plain socket (RESP2, no redirections followed), its
 * reply printed as {@code redis-cli} prints it when its output is not a terminal: a bulk or simple
 * string as it is, an integer as its digits, a nil as an empty line, an error as its message, an
 * array as its elements one per line; each followed by a new line, except the reports that
 * {@code redis-cli} prints as they are ({@code INFO}, {@code CLUSTER NODES}, ...). A node that
 * refuses the connection gives {@code redis-cli}'s "Could not connect" line. It replaces a
 * {@code redis-cli} process per call: the cluster and sentinel set-ups poll their nodes every
 * 100 ms, and starting those processes took much of the tests' CPU on a loaded machine.
 */
final class RedisNodeCommand {

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	private RedisNodeCommand() {
	}

	/**
	 * Sends {@code arguments} to the node on {@code 127.0.0.1:port}.
	 * @param port the node's port
	 * @param arguments the command and its arguments
	 * @return the reply, as {@code redis-cli} prints it
	 */
	static String call(int port, String... arguments) {
		try (Socket socket = new Socket()) {
			try {
				socket.connect(new InetSocketAddress("127.0.0.1", port), (int) TIMEOUT.toMillis());
			}
			catch (IOException ex) {
				return "Could not connect to Redis at 127.0.0.1:" + port + ": " + ex.getMessage() + "\n";
			}
			socket.setSoTimeout((int) TIMEOUT.toMillis());
			OutputStream out = socket.getOutputStream();
			out.write(request(arguments));
			out.flush();
			StringBuilder printed = new StringBuilder();
			print(new BufferedInputStream(socket.getInputStream()), printed);
			if (printedAsIs(arguments) && printed.length() > 0) {
				printed.setLength(printed.length() - 1);
			}
			return printed.toString();
		}
		catch (IOException ex) {
			return "Error: " + ex.getMessage() + "\n";
		}
	}

	/** The reports {@code redis-cli} prints without a new line of its own after them. */
	private static boolean printedAsIs(String... arguments) {
		String command = arguments[0].toLowerCase(Locale.ROOT);
		String sub = (arguments.length == 2) ? arguments[1].toLowerCase(Locale.ROOT) : "";
		return command.equals("info") || (command.equals("cluster") && (sub.equals("nodes") || sub.equals("info")))
				|| (command.equals("client") && (sub.equals("list") || sub.equals("info")));
	}

	private static byte[] request(String... arguments) {
		ByteArrayOutputStream request = new ByteArrayOutputStream();
		write(request, "*" + arguments.length + "\r\n");
		for (String argument : arguments) {
			byte[] bytes = argument.getBytes(StandardCharsets.UTF_8);
			write(request, "$" + bytes.length + "\r\n");
			request.writeBytes(bytes);
			write(request, "\r\n");
		}
		return request.toByteArray();
	}

	private static void write(ByteArrayOutputStream out, String text) {
		out.writeBytes(text.getBytes(StandardCharsets.UTF_8));
	}

	/** Reads one reply and appends it as {@code redis-cli} prints it. */
	private static void print(InputStream in, StringBuilder printed) throws IOException {
		int type = in.read();
		if (type == -1) {
			throw new IOException("Server closed the connection");
		}
		String line = line(in);
		switch (type) {
			case '+', '-', ':' -> printed.append(line).append('\n');
			case '$' -> {
				int length = Integer.parseInt(line);
				if (length >= 0) {
					printed.append(new String(in.readNBytes(length), StandardCharsets.UTF_8));
					in.readNBytes(2);
				}
				printed.append('\n');
			}
			case '*' -> {
				int count = Integer.parseInt(line);
				for (int i = 0; i < count; i++) {
					print(in, printed);
				}
			}
			default -> throw new IOException("Unexpected reply type " + (char) type);
		}
	}

	/** A line of the reply, without its CRLF. */
	private static String line(InputStream in) throws IOException {
		ByteArrayOutputStream line = new ByteArrayOutputStream();
		int previous = -1;
		int current;
		while ((current = in.read()) != -1) {
			if (previous == '\r' && current == '\n') {
				byte[] bytes = line.toByteArray();
				return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
			}
			line.write(current);
			previous = current;
		}
		throw new IOException("Server closed the connection");
	}

}
