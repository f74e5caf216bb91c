package dev.idempotency.testsupport;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RedisNodeCommand} against a one-reply server on a loopback port: the request it writes and
 * each reply printed as {@code redis-cli} prints it when piped.
 */
class RedisNodeCommandTests {

	@Test
	void writesTheCommandAsARespArray() throws Exception {
		try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			CompletableFuture<String> request = CompletableFuture.supplyAsync(() -> answer(server, "+OK\r\n"));

			assertThat(RedisNodeCommand.call(server.getLocalPort(), "SET", "k", "v\u00e4lue")).isEqualTo("OK\n");
			assertThat(request.get(10, TimeUnit.SECONDS)).isEqualTo("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$6\r\nv\u00e4lue\r\n");
		}
	}

	@Test
	void printsEachKindOfReplyAsRedisCliDoes() throws Exception {
		assertThat(reply("$9\r\nCOMPLETED\r\n", "GET", "k")).isEqualTo("COMPLETED\n");
		assertThat(reply("$-1\r\n", "GET", "k")).isEqualTo("\n");
		assertThat(reply(":0\r\n", "EXISTS", "k")).isEqualTo("0\n");
		assertThat(reply("-MOVED 3999 127.0.0.1:7001\r\n", "GET", "k")).isEqualTo("MOVED 3999 127.0.0.1:7001\n");
		assertThat(reply("*2\r\n$9\r\n127.0.0.1\r\n$4\r\n7000\r\n", "SENTINEL", "get-master-addr-by-name", "m"))
			.isEqualTo("127.0.0.1\n7000\n");
	}

	@Test
	void printsReportsAsTheyAre() throws Exception {
		assertThat(reply("$13\r\nrole:master\r\n\r\n", "INFO", "replication")).isEqualTo("role:master\r\n");
		assertThat(reply("$7\r\na b c\r\n\r\n", "CLUSTER", "NODES")).isEqualTo("a b c\r\n");
	}

	@Test
	void aRefusedConnectionGivesRedisClisLine() throws Exception {
		int port;
		try (ServerSocket closed = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			port = closed.getLocalPort();
		}
		assertThat(RedisNodeCommand.call(port, "PING")).startsWith("Could not connect to Redis at 127.0.0.1:" + port);
	}

	private static String reply(String reply, String... command) throws Exception {
		try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			CompletableFuture<String> request = CompletableFuture.supplyAsync(() -> answer(server, reply));
			String printed = RedisNodeCommand.call(server.getLocalPort(), command);
			request.get(10, TimeUnit.SECONDS);
			return printed;
		}
	}

	/** Accepts one connection, reads one request (a RESP array of bulk strings), writes {@code reply}. */
	private static String answer(ServerSocket server, String reply) {
		try (Socket socket = server.accept()) {
			InputStream in = socket.getInputStream();
			ByteArrayOutputStream request = new ByteArrayOutputStream();
			String header = line(in, request);
			int count = Integer.parseInt(header.substring(1));
			for (int i = 0; i < count; i++) {
				int length = Integer.parseInt(line(in, request).substring(1));
				request.writeBytes(in.readNBytes(length + 2));
			}
			socket.getOutputStream().write(reply.getBytes(StandardCharsets.UTF_8));
			socket.getOutputStream().flush();
			return request.toString(StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static String line(InputStream in, ByteArrayOutputStream copy) throws IOException {
		StringBuilder line = new StringBuilder();
		int current;
		while ((current = in.read()) != '\n') {
			if (current == -1) {
				throw new IOException("closed");
			}
			copy.write(current);
			if (current != '\r') {
				line.append((char) current);
			}
		}
		copy.write('\n');
		return line.toString();
	}

}
