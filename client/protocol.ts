// The server's custom messages (server/protocol.ts) as typed message types of the client's own vscode-jsonrpc
// (server and client bundle different jsonrpc versions, so server/protocol.ts declares only names and shapes).
import { NotificationType, RequestType } from 'vscode-languageclient/node';
import { DocumentStatusNotification, ProgramsRequest } from '../server/protocol';

export const programsRequest = new RequestType<ProgramsRequest.Params, ProgramsRequest.Result, void>(ProgramsRequest.method);
export const documentStatusNotification = new NotificationType<DocumentStatusNotification.Params>(DocumentStatusNotification.method);
