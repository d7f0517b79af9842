export const USAGE = `Usage: atrium <command> [options]

Commands:
  serve [--host H] [--port P] [--build-if-missing]
                          run the server (HOST / PORT, default 127.0.0.1:3000)
  serve stop              stop the running server (waits up to 30 s)
  reindex                 rebuild metadata.db from the conversation files
  export <id> [--with-ancestors] [-o file]
                          write a conversation as a .tar.gz (default <id>.tar.gz)
  import <file|dir> [--new-id]
                          import an export or a conversation directory
  token                   print the access token, creating it if absent
  chat <id>               attach to a live conversation in the terminal
  machine add <name> [--root DIR]... [--url U]
                          add a machine to the running server; prints its token once
  machine connect <gateway URL> [--name N] [--root DIR]... [--sandbox MODE] [--mcp-env NAME]...
                          link this computer to a gateway as a machine (token from
                          ATRIUM_MACHINE_TOKEN; roots default to the current directory)
  migrate --to postgres://…
                          copy this data directory's conversations, linked machines and
                          sign-ins into a team cluster's database (stop the server first;
                          run again to copy what is new)
  help                    show this help

Environment: ATRIUM_HOME (data directory), ATRIUM_TOKEN, HOST, PORT, ATRIUM_MACHINE_TOKEN,
  ATRIUM_DATABASE_URL, ATRIUM_NODE_URL, ATRIUM_CLUSTER_SECRET.
Exit status: 0 done, 1 failed, 2 bad usage, 3 refused (lock held, id clash).`;
